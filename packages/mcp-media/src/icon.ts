/**
 * The media server's icon (a play button), shown by hosts beside the server and each of its tools.
 * Inline as a `data:` URI, so nothing is hosted or fetched; about 150 bytes of SVG, since it is repeated on
 * every tool in tools/list. The same SVG, with a <title>, is `icon.svg` beside package.json (server.json
 * points at it; a test keeps the two alike).
 */
import { svgIcon } from '@polymodal/mcp-common';

export const MEDIA_ICON_SVG =
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 12 12'><rect width='12' height='12' rx='3' fill='crimson'/><path d='M4 3v6l5-3z' fill='white'/></svg>";

export const MEDIA_ICON = svgIcon(MEDIA_ICON_SVG);
