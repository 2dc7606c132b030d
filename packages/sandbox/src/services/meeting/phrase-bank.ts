/**
 * Sentences the sandbox "hears" in recordings that carry no script: it cannot recognise speech, so it
 * picks these with a generator seeded by the file's sha256 (same file, same transcript). They are meeting
 * talk on purpose, with decisions, commitments and questions, so that summaries have content.
 */
export const PHRASE_BANK: readonly string[] = Object.freeze([
  "Let's start with the quarterly roadmap.",
  'The first milestone is on track and the team is confident about the scope.',
  'Customer feedback on the beta has been mostly positive.',
  'We decided to postpone the reporting feature to the next quarter.',
  'I will update the project plan by Friday.',
  'Can we get more support from the data team?',
  'Next topic: the hiring plan for the support team.',
  'We need two more people before the summer.',
  'We agreed to open the positions this week.',
  "I'll write the job descriptions by Wednesday.",
  'What is the budget for contractors this year?',
  'Last item: the office move.',
  'The new office will be ready at the end of next month.',
  'I will send the moving checklist to everyone by Monday.',
  'Do we keep the old meeting rooms until then?',
  "Thanks everyone, let's wrap up here.",
]);
