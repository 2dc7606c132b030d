export * from './register-control-routes.js';
export * from './sandbox-control.js';
