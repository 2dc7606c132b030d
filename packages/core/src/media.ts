/** `@polymodal/core/media`: what a file is by its content (images, videos, recordings), checked data URLs. */
export { inspectRecording, type RecordingInfo } from './media/inspect-recording.js';
export { type MediaDataUrl, readMediaAsDataUrl } from './media/read-media-as-data-url.js';
export { isWav, type MediaKind, sniffImageType, sniffVideoContainer } from './media/sniff-media-type.js';
