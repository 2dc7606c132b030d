/**
 * The media player view: the saved file of synthesize_speech / get_speech (an `<audio>` element) or of
 * generate_video / image_to_video / get_video_job (a `<video>` element), with the file's name and size and the
 * job's facts, and the job's progress with "Check again" while it runs. Built from views/media-player/ into
 * dist/views/media-player.html (scripts/build-views.mjs); the file is read through the host (`resources/read`
 * of the output) and played from a `data:` URL, so the view needs no origin in its CSP.
 */
import { builtViewFiles, defineView } from '@polymodal/mcp-common';

export const MEDIA_PLAYER_VIEW = defineView({
  name: 'media-player',
  title: 'Media player',
  description:
    "Plays a saved speech or video file, with its name, size and the job that made it; shows a running job's progress and checks it again on request.",
  files: builtViewFiles(import.meta.url, 'media-player.html'),
});
