/** The YouTube URL shapes the flashcards service takes, checked before anything is sent. */

const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;

/** Whether a URL is a YouTube watch, Shorts or short-link URL with an 11-character video id. */
export function isYouTubeVideoUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  const host = url.hostname.toLowerCase();
  if (host === 'youtu.be') return YOUTUBE_ID.test(url.pathname.slice(1));
  if (!['youtube.com', 'www.youtube.com', 'm.youtube.com'].includes(host)) return false;
  if (url.pathname === '/watch') return YOUTUBE_ID.test(url.searchParams.get('v') ?? '');
  const shorts = /^\/shorts\/([^/]+)\/?$/.exec(url.pathname);
  return shorts !== null && YOUTUBE_ID.test(shorts[1] ?? '');
}
