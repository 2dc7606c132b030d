/**
 * The reading score view (MCP Apps): shows a score_reading / get_reading_score result as the reference text
 * word by word, each word coloured by what the scoring found and labelled in words too (a screen reader, or
 * someone who cannot tell the colours apart, gets the same), with the scores and the words to practise.
 * While a queued score runs, "Check again" calls get_reading_score through the host.
 *
 * No player for the student's recording: the result links no output (score_reading saves nothing), and the
 * recording the input names is a path on the server's disk or an https URL. The host can only read the
 * server's `polymodal://outputs/` resources, and the view's CSP allows no origin, so neither is reachable
 * from here.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import {
  checkAgain,
  connectView,
  createViewApp,
  type JobFacts,
  jobStateOf,
  textOf,
} from '@polymodal/mcp-common/views';
// Types only: what score_reading and get_reading_score put in their structured result once scored.
import type { readingOutcome } from '../../src/tools/reading-result.js';

type ReadingOutcome = ReturnType<typeof readingOutcome>;

/** The platform's word statuses (comparison.wordResults[].status) that the view says in words. */
type WordStatus = 'correct' | 'missing' | 'extra' | 'substitution';

type ScoredWord = ReadingOutcome['words'][number] & { status: WordStatus };

/** The structured result of score_reading / get_reading_score, running (a long job's fields) or scored. */
type ReadingFacts = JobFacts & Partial<Omit<ReadingOutcome, 'words'>> & { words?: ScoredWord[] };

const elements = {
  heading: document.getElementById('heading') as HTMLHeadingElement,
  status: document.getElementById('status') as HTMLParagraphElement,
  running: document.getElementById('running') as HTMLDivElement,
  progress: document.getElementById('progress') as HTMLProgressElement,
  progressLabel: document.getElementById('progress-label') as HTMLLabelElement,
  refresh: document.getElementById('refresh') as HTMLButtonElement,
  scoresSection: document.getElementById('scores-section') as HTMLElement,
  scores: document.getElementById('scores') as HTMLDListElement,
  wordsSection: document.getElementById('words-section') as HTMLElement,
  words: document.getElementById('words') as HTMLOListElement,
  referenceSection: document.getElementById('reference-section') as HTMLElement,
  reference: document.getElementById('reference') as HTMLParagraphElement,
  practiseSection: document.getElementById('practise-section') as HTMLElement,
  practise: document.getElementById('practise') as HTMLParagraphElement,
  transcriptSection: document.getElementById('transcript-section') as HTMLElement,
  transcript: document.getElementById('transcript') as HTMLQuoteElement,
};

const app = createViewApp('Polymodal reading score');
let jobId: string | undefined;
let referenceText: string | undefined;

// The reference text is shown as typed while the score is not there yet (score_reading's input; a
// reference recording or get_reading_score gives none).
app.addEventListener('toolinput', ({ arguments: input }) => {
  if (typeof input?.referenceText === 'string') referenceText = input.referenceText;
  if (typeof input?.jobId === 'string') jobId = input.jobId;
});
app.addEventListener('toolresult', (result) => show(result));
elements.refresh.addEventListener('click', () => void refresh());

function show(result: CallToolResult): void {
  const facts = (result.structuredContent ?? {}) as ReadingFacts;
  if (facts.jobId && facts.jobId !== 'immediate') jobId = facts.jobId;
  const state = jobStateOf(result, facts);
  elements.running.hidden = !(state === 'running' && jobId);
  if (state === 'running') {
    showRunning(facts);
    return;
  }
  if (state === 'tool-failed' || facts.outcome === 'failed' || !facts.words) {
    elements.heading.textContent = state === 'tool-failed' ? 'The tool failed' : 'The reading was not scored';
    elements.status.textContent = textOf(result);
    showReference(true);
    return;
  }
  elements.heading.textContent = 'Reading score';
  elements.status.textContent =
    facts.assessment === 'no_speech'
      ? 'No speech was detected in the recording (all scores 0): check the microphone and ask the student to read again.'
      : `${facts.correctWords ?? 0} of ${facts.referenceWords ?? 0} words read correctly.`;
  showScores(facts);
  showWords(facts.words);
  showReference(false);
  const practise = facts.feedback?.practise ?? [];
  elements.practise.textContent = practise.join(', ');
  elements.practiseSection.hidden = practise.length === 0;
  elements.transcript.textContent = facts.transcript ?? '';
  elements.transcriptSection.hidden = !facts.transcript;
}

function showRunning(facts: ReadingFacts): void {
  const progress = Math.round(facts.progress ?? 0);
  const state = facts.status ?? 'running';
  elements.heading.textContent = 'Scoring the reading…';
  elements.status.textContent = `Not ready yet (${state}): check again in a moment.`;
  elements.progressLabel.textContent = `Queued score ${jobId ?? ''}: ${state}, ${progress}%`;
  // A queued reading score reports no progress until it is done: an indeterminate bar, not an empty one.
  if (progress > 0) elements.progress.value = progress;
  else elements.progress.removeAttribute('value');
  elements.scoresSection.hidden = true;
  elements.wordsSection.hidden = true;
  elements.practiseSection.hidden = true;
  elements.transcriptSection.hidden = true;
  showReference(true);
}

function showReference(visible: boolean): void {
  elements.reference.textContent = referenceText ?? '';
  elements.referenceSection.hidden = !(visible && referenceText);
}

/** Score names as a teacher reads them; a score the platform could not give says so. */
function showScores(facts: ReadingFacts): void {
  const scores = facts.scores;
  const score = (value: number | null | undefined) =>
    value === null || value === undefined ? 'not scored' : value.toFixed(1);
  const rows: [string, string, string][] = [
    ['Overall', score(scores?.overall), 'overall'],
    ['Text accuracy', score(scores?.textAccuracy), 'textAccuracy'],
    ['Pronunciation', score(scores?.pronunciation), 'pronunciation'],
    ['Similarity to the text', score(scores?.levenshteinSimilarity), 'levenshteinSimilarity'],
    ['Words correct', `${facts.correctWords ?? 0} of ${facts.referenceWords ?? 0}`, 'correctWords'],
  ];
  elements.scores.replaceChildren(
    ...rows.map(([term, value, key]) => {
      const row = document.createElement('div');
      row.className = 'score';
      row.dataset.score = key;
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.textContent = value;
      row.append(dt, dd);
      return row;
    }),
  );
  elements.scoresSection.hidden = false;
}

/** The words spoken aloud by a screen reader after each word, and shown on hover. */
function labelOf(word: ScoredWord): string {
  switch (word.status) {
    case 'correct':
      return 'correct';
    case 'substitution':
      return `read as “${word.heard ?? ''}”`;
    case 'missing':
      return 'missing, not read';
    case 'extra':
      return 'extra, read but not in the text';
  }
}

function showWords(words: readonly ScoredWord[]): void {
  elements.words.replaceChildren(
    ...words.map((word) => {
      const item = document.createElement('li');
      item.className = `word word-${word.status}`;
      item.dataset.status = word.status;
      const label = labelOf(word);
      item.title = label;
      const token = document.createElement('span');
      token.className = 'token';
      // An extra word is not in the reference: what was heard stands in its place.
      token.textContent = word.expected ?? word.heard ?? '';
      item.append(token);
      if (word.status === 'substitution' && word.heard) {
        // Shown under the word for sighted readers; the hidden label below says it to everyone else.
        const heard = document.createElement('span');
        heard.className = 'heard';
        heard.setAttribute('aria-hidden', 'true');
        heard.textContent = word.heard;
        item.append(heard);
      }
      const hidden = document.createElement('span');
      hidden.className = 'visually-hidden';
      hidden.lang = 'en';
      hidden.textContent = `: ${label}`;
      item.append(hidden);
      return item;
    }),
  );
  elements.wordsSection.hidden = words.length === 0;
}

async function refresh(): Promise<void> {
  if (!jobId) return;
  await checkAgain(app, elements, {
    name: 'get_reading_score',
    arguments: { jobId },
    what: 'the score',
    show(result) {
      show(result);
      // The button is gone: focus goes to what replaced it rather than to the page's start.
      if (elements.running.hidden) elements.heading.focus();
    },
  });
}

connectView(app, elements.status);
