export * from './define-tool.js';
export * from './tool-context.js';
