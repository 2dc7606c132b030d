export * from './create-access-token-verifier.js';
export * from './create-tenant-access.js';
export { type TenantDirectories, tenantDirectories } from './create-tenant-env.js';
export { hashToken } from './find-tenant-by-token.js';
export * from './protected-resource-metadata.js';
export * from './read-oauth-settings.js';
export * from './read-tenants-file.js';
export * from './tenant-id.js';
