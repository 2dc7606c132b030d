export * from './sync-roots.js';
