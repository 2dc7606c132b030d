/** The summary: its overview, then the action items, decisions, open questions and topics, each a list. */
import type { ViewerElements } from './elements.js';
import type { MeetingResult } from './viewer.js';

type Summary = NonNullable<MeetingResult['summary']>;
type SummaryItem = NonNullable<Summary['actionItems'] | Summary['topics']>[number];

export function showSummary(elements: ViewerElements, summary: MeetingResult['summary']): void {
  if (!summary) return;
  elements.summarySection.hidden = false;
  elements.overview.textContent = summary.overview || 'No overview.';
  const lists: [string, readonly SummaryItem[] | undefined][] = [
    ['Action items', summary.actionItems],
    ['Decisions', summary.decisions],
    ['Open questions', summary.openQuestions],
    ['Topics', summary.topics],
  ];
  elements.summaryLists.replaceChildren(
    ...lists
      .filter(([, items]) => (items?.length ?? 0) > 0)
      .flatMap(([heading, items]) => {
        const h3 = document.createElement('h3');
        h3.textContent = heading;
        const ul = document.createElement('ul');
        ul.className = 'items';
        ul.append(...(items ?? []).map(summaryItem));
        return [h3, ul];
      }),
  );
}

function summaryItem(item: SummaryItem): HTMLLIElement {
  const li = document.createElement('li');
  li.textContent = item.text ?? '';
  const who = [item.owner, item.dueDate ? `due ${item.dueDate}` : ''].filter(Boolean).join(', ');
  if (who) {
    const owner = document.createElement('span');
    owner.className = 'owner';
    owner.textContent = ` — ${who}`;
    li.append(owner);
  }
  return li;
}
