export * from './llm-service.js';
export * from './planner-model.js';
