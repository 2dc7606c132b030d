export * from './create-meeting-client.js';
