import { defineConfig } from 'tsup';
// The library entry (dist/server.js) as before, and the bin (dist/index.js) as a code-split bundle: see there.
import { serverPackageConfig } from '../../scripts/tsup-server-package.mjs';

// The service servers' views, served by the combined server too.
export default defineConfig(
  serverPackageConfig({
    views: [
      '../mcp-meeting/views/meeting-viewer',
      '../mcp-media/views/media-player',
      '../mcp-media/views/flashcard-deck',
      '../mcp-speech/views/reading-score',
    ],
  }),
);
