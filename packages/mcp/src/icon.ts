/**
 * The combined server's icon (four tiles, one per toolset), shown by hosts beside the server and each of its tools.
 * Inline as a `data:` URI, so nothing is hosted or fetched; about 150 bytes of SVG, since it is repeated on
 * every tool in tools/list. The same SVG, with a <title>, is `icon.svg` beside package.json (server.json
 * points at it; a test keeps the two alike).
 */
import { svgIcon } from '@polymodal/mcp-common';

export const POLYMODAL_ICON_SVG =
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 12 12'><rect width='12' height='12' rx='3' fill='dimgray'/><path d='M3 3h2v2H3zm4 0h2v2H7zM3 7h2v2H3zm4 0h2v2H7z' fill='white'/></svg>";

export const POLYMODAL_ICON = svgIcon(POLYMODAL_ICON_SVG);
