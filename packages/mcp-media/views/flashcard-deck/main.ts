/**
 * The flashcard deck view (MCP Apps): the cards of a create_flashcards / get_flashcards result, one at a
 * time, each turned over on request (front: the sentence of the video; back: its translation and words). The
 * result lists the first cards only; the view reads the rest from the saved JSON through the host
 * (`resources/read` of its `polymodal://outputs/` link). While the job runs it shows the job's progress, and
 * "Check again" calls get_flashcards through the host.
 *
 * A card's clip is the platform's URL of a cut of the video: the server does not save clips as outputs, and
 * the view's CSP lets it load nothing from any origin, so no clip is played here. A card whose clip has an
 * absolute web address offers to open it through the host (`ui/open-link`, which the host may confirm).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import {
  checkAgain,
  connectView,
  createViewApp,
  type JobFacts,
  messageOf,
  outputLinkOf,
  showJobState,
  textOf,
} from '@polymodal/mcp-common/views';

const elements = {
  title: document.getElementById('title') as HTMLHeadingElement,
  summary: document.getElementById('summary') as HTMLParagraphElement,
  status: document.getElementById('status') as HTMLParagraphElement,
  progress: document.getElementById('progress') as HTMLProgressElement,
  refresh: document.getElementById('refresh') as HTMLButtonElement,
  cards: document.getElementById('cards') as HTMLElement,
  position: document.getElementById('position') as HTMLParagraphElement,
  card: document.getElementById('card') as HTMLButtonElement,
  front: document.getElementById('front') as HTMLSpanElement,
  frontText: document.getElementById('front-text') as HTMLSpanElement,
  frontTime: document.getElementById('front-time') as HTMLSpanElement,
  back: document.getElementById('back') as HTMLSpanElement,
  backText: document.getElementById('back-text') as HTMLSpanElement,
  words: document.getElementById('words') as HTMLSpanElement,
  previous: document.getElementById('previous') as HTMLButtonElement,
  next: document.getElementById('next') as HTMLButtonElement,
  openClip: document.getElementById('open-clip') as HTMLButtonElement,
  announce: document.getElementById('announce') as HTMLParagraphElement,
};

interface Word {
  word: string;
  pronunciation: string | null;
  meaning: string | null;
}

interface Card {
  start?: number;
  end?: number;
  text: string;
  translation: string | null;
  words: Word[];
  clipUrl: string | null;
}

/**
 * The structured result of create_flashcards / get_flashcards: their output schema, the long-job one
 * (`JobFacts`), and the further properties it allows that the view shows.
 */
interface FlashcardsFacts extends JobFacts {
  stage?: string;
  title?: string | null;
  sourceLanguage?: string;
  targetLanguage?: string;
  segmentCount?: number;
  wordCount?: number;
  segments?: Card[];
}

const app = createViewApp('Polymodal flashcards');
let jobId: string | undefined;
let cards: Card[] = [];
let current = 0;
let loadedAll: string | undefined;

app.addEventListener('toolresult', (result) => void show(result));
elements.refresh.addEventListener('click', () => void refresh());
elements.card.addEventListener('click', () => flip());
elements.previous.addEventListener('click', () => go(current - 1));
elements.next.addEventListener('click', () => go(current + 1));
elements.openClip.addEventListener('click', () => void openClip());
// Enter and Space turn the focused card over (it is a button); the arrows move through the deck from any of
// its controls.
elements.cards.addEventListener('keydown', (event) => {
  const moves: Record<string, number> = {
    ArrowLeft: current - 1,
    ArrowUp: current - 1,
    ArrowRight: current + 1,
    ArrowDown: current + 1,
    Home: 0,
    End: cards.length - 1,
  };
  const target = moves[event.key];
  if (target === undefined) return;
  event.preventDefault();
  go(target);
});

async function show(result: CallToolResult): Promise<void> {
  const facts = (result.structuredContent ?? {}) as FlashcardsFacts;
  jobId = facts.jobId ?? jobId;
  const job = {
    id: jobId,
    runningTitle: 'Making the flashcards…',
    stage: facts.stage !== facts.status ? facts.stage : undefined,
  };
  if (showJobState(elements, result, facts, job)) return;
  if (facts.outcome !== 'succeeded' || !facts.segments) {
    elements.title.textContent =
      facts.outcome === 'cancelled' ? 'The flashcards job was cancelled' : 'The flashcards job failed';
    elements.status.textContent = facts.error ?? textOf(result);
    return;
  }
  elements.title.textContent = facts.title || 'Flashcards';
  elements.front.lang = facts.sourceLanguage ?? '';
  elements.back.lang = facts.targetLanguage ?? '';
  const total = facts.segmentCount ?? facts.segments.length;
  if (loadedAll !== jobId) setCards(facts.segments);
  setSummary(facts, total);
  elements.status.textContent = '';
  // The saved JSON holds every card.
  const uri = outputLinkOf(result, (link) => link.mimeType === 'application/json')?.uri;
  if (total > cards.length && uri && loadedAll !== jobId) await loadAll(uri, total);
}

/** The result lists the first cards; the saved JSON holds every one. */
async function loadAll(uri: string, total: number): Promise<void> {
  elements.status.textContent = `Loading all ${total} cards…`;
  try {
    const read = await app.readServerResource({ uri });
    const content = read.contents[0];
    if (!content || !('text' in content)) throw new Error('the host returned no text');
    const all = cardsOf(JSON.parse(content.text));
    if (all.length === 0) throw new Error('the saved file has no cards');
    setCards(all);
    loadedAll = jobId;
    elements.status.textContent = '';
  } catch (error) {
    elements.status.textContent = `Showing the first ${cards.length} of ${total} cards; the others could not be loaded: ${messageOf(error)}`;
  }
}

/** The cards of the saved result (the platform's segments, as the tool's result summarises them). */
function cardsOf(saved: unknown): Card[] {
  const segments = (saved as { segments?: unknown })?.segments;
  if (!Array.isArray(segments)) return [];
  return segments.flatMap((segment) => {
    if (typeof segment?.text !== 'string') return [];
    const video = segment.video ?? {};
    return [
      {
        start: typeof segment.start === 'number' ? segment.start : undefined,
        end: typeof segment.end === 'number' ? segment.end : undefined,
        text: segment.text,
        translation: typeof segment.translation === 'string' ? segment.translation : null,
        words: (Array.isArray(segment.word_items) ? segment.word_items : []).map(
          (item: { word?: unknown; pronunciation?: unknown; meaning?: unknown }) => ({
            word: String(item.word ?? ''),
            pronunciation: typeof item.pronunciation === 'string' ? item.pronunciation : null,
            meaning: typeof item.meaning === 'string' ? item.meaning : null,
          }),
        ),
        clipUrl: video.rendered_segment_url ?? video.original_segment_url ?? null,
      },
    ];
  });
}

function setSummary(facts: FlashcardsFacts, total: number): void {
  const parts = [`${total} ${total === 1 ? 'card' : 'cards'}`];
  if (facts.sourceLanguage && facts.targetLanguage) {
    parts.push(`${facts.sourceLanguage} → ${facts.targetLanguage}`);
  }
  if (facts.wordCount !== undefined) parts.push(`${facts.wordCount} words`);
  if (jobId) parts.push(`job ${jobId}`);
  elements.summary.textContent = parts.join(' · ');
}

function setCards(next: Card[]): void {
  cards = next;
  elements.cards.hidden = cards.length === 0;
  // More cards may arrive while one is shown (the saved JSON): it stays as the person left it.
  if (cards.length > 0) {
    render(Math.min(current, cards.length - 1), elements.card.getAttribute('aria-pressed') === 'true');
  }
}

/** Shows card `index`, front up. */
function render(index: number, flipped: boolean): void {
  current = index;
  const card = cards[index];
  if (!card) return;
  elements.position.textContent = `Card ${index + 1} of ${cards.length}`;
  elements.frontText.textContent = card.text;
  elements.frontTime.textContent =
    card.start !== undefined && card.end !== undefined
      ? `${card.start.toFixed(1)}–${card.end.toFixed(1)} s in the video`
      : '';
  elements.backText.textContent = card.translation ?? (card.words.length ? '' : 'No translation');
  elements.words.replaceChildren(...card.words.map(wordElement));
  elements.previous.disabled = index === 0;
  elements.next.disabled = index === cards.length - 1;
  elements.openClip.hidden = !isWebAddress(card.clipUrl);
  setFlipped(flipped);
}

function wordElement(item: Word): HTMLSpanElement {
  const word = document.createElement('span');
  word.className = 'word';
  const text = document.createElement('span');
  text.lang = elements.front.lang;
  text.textContent = item.word;
  word.append(text);
  if (item.pronunciation) {
    const pronunciation = document.createElement('span');
    pronunciation.className = 'pronunciation';
    pronunciation.textContent = ` ${item.pronunciation}`;
    word.append(pronunciation);
  }
  if (item.meaning) {
    const meaning = document.createElement('span');
    meaning.className = 'meaning';
    meaning.textContent = ` ${item.meaning}`;
    word.append(meaning);
  }
  return word;
}

function setFlipped(flipped: boolean): void {
  elements.card.setAttribute('aria-pressed', String(flipped));
  elements.front.hidden = flipped;
  elements.back.hidden = !flipped;
}

function flip(): void {
  const card = cards[current];
  if (!card) return;
  const flipped = elements.card.getAttribute('aria-pressed') !== 'true';
  setFlipped(flipped);
  const position = `card ${current + 1} of ${cards.length}`;
  elements.announce.textContent = flipped
    ? `Back of ${position}: ${card.translation ?? card.words.map((item) => item.meaning ?? item.word).join(', ')}`
    : `Front of ${position}: ${card.text}`;
}

function go(index: number): void {
  if (index < 0 || index >= cards.length || index === current) return;
  render(index, false);
  elements.announce.textContent = `Card ${index + 1} of ${cards.length}, front: ${cards[index]?.text ?? ''}`;
}

/** Only an absolute http(s) address means anything outside the server (a relative one is the platform's). */
function isWebAddress(url: string | null | undefined): url is string {
  return typeof url === 'string' && /^https?:\/\//i.test(url);
}

async function openClip(): Promise<void> {
  const url = cards[current]?.clipUrl;
  if (!isWebAddress(url)) return;
  try {
    const opened = await app.openLink({ url });
    if (opened.isError) elements.status.textContent = 'The host did not open the clip.';
  } catch (error) {
    elements.status.textContent = `Could not open the clip: ${messageOf(error)}`;
  }
}

async function refresh(): Promise<void> {
  if (!jobId) return;
  await checkAgain(app, elements, { name: 'get_flashcards', arguments: { jobId }, show });
}

connectView(app, elements.status);
