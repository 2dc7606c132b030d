export * from './tool-annotations.js';
