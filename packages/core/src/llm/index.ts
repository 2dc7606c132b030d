export * from './create-llm-client.js';
