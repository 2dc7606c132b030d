export * from './budget-exceeded-error.js';
export * from './budget-tool-error.js';
export * from './create-credit-budget.js';
export { type CreditReservation, type EntryCredits, entryCredits, restartCredits } from './entry-credits.js';
export * from './estimate-meeting-credits.js';
export * from './read-credits-per-day.js';
export * from './utc-day.js';
