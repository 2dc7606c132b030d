export * from './create-tenant-access.js';
export { type TenantDirectories, tenantDirectories } from './create-tenant-env.js';
export { hashToken } from './find-tenant-by-token.js';
export * from './read-tenants-file.js';
export * from './tenant-id.js';
