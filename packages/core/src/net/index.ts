export * from './assert-public-http-url.js';
export * from './classify-address.js';
export * from './private-network.js';
export * from './public-only-connector.js';
export * from './public-only-lookup.js';
