export * from './create-flashcards-client.js';
