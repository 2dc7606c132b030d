export * from './format-subtitles.js';
