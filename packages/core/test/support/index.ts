/**
 * `@polymodal/core/testing`: what other packages' tests share of core's test support — the contract every
 * job ledger must keep, and media files built byte by byte (WAV tones and silence, MP4, MP3, images, broken
 * files). TypeScript source, for the workspace's tests only: it is not published (publishConfig.exports
 * leaves it out).
 */
export { describeJobLedgerContract } from './job-ledger-contract.js';
export { describeJobLedgerPaging, type LedgerAccess } from './job-ledger-paging-contract.js';
export { frequencyOf, rmsOf, type ToneWavOptions, toneWav, wav, writeSparseWav } from './make-wav.js';
export { avi, ftyp, ftypJunk, jpeg, mkv, mp3, mp4, png, riffWaveJunk } from './media-files.js';
