import { defineConfig } from 'tsup';
// The library entry (dist/server.js) as before, and the bin (dist/index.js) as a code-split bundle: see there.
import { serverPackageConfig } from '../../scripts/tsup-server-package.mjs';

export default defineConfig(serverPackageConfig({ views: ['views/media-player', 'views/flashcard-deck'] }));
