/**
 * register_voice and list_voices: a custom (cloned) voice from a short recording, registered once and
 * reused by synthesize_speech. Cloning someone's voice needs their authorisation: the call requires
 * consent=true, and when it is missing and the client supports elicitation, the user is asked directly.
 */
import type { CustomVoiceCreated } from '@polymodal/core';
import { ValidationError } from '@polymodal/core/errors';
import type { ToolDeps } from '@polymodal/mcp-common';
import {
  defineTool,
  PLATFORM_WORK_ANNOTATIONS,
  READ_ONLY_ANNOTATIONS,
  toolErrorFor,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import { isRemoteReference } from './media-tool-deps.js';

const CONSENT_QUESTION =
  'Registering a custom voice clones the voice in this recording. Confirm that the person whose voice it is has authorised cloning it.';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const registerVoiceInput = {
  audioPath: z.string().min(1).optional(),
  audioUrl: z.string().min(1).optional().describe('Instead of audioPath.'),
  consent: z.boolean().optional().describe('The owner agreed.'),
  name: z.string().min(1).max(120).optional(),
  model: z.enum(['model_b', 'model_c', 'model_d']).optional(),
  language: z.string().min(2).max(8).optional(),
  transcript: z.string().optional().describe('What is said.'),
};

// Terse, as tools/list is read by a model: the voice's id, name, text, model and language pass as further properties.
const registerVoiceOutput = z.looseObject({ cloneAudio: z.string(), resumed: z.boolean() });

const listVoicesInput = {};

const listVoicesOutput = z.looseObject({
  voices: z.array(z.looseObject({ cloneAudio: z.string() })),
});

export const registerVoiceTool = defineTool({
  name: 'register_voice',
  title: 'Register a custom voice',
  description:
    'Clones a voice from a short WAV (local or https) once; pass its cloneAudio as voice to synthesize_speech. Needs consent=true (the owner agreed).',
  inputSchema: registerVoiceInput,
  outputSchema: registerVoiceOutput,
  annotations: PLATFORM_WORK_ANNOTATIONS,
  handler: (deps: ToolDeps, session) => async (args, extra) => {
    try {
      await deps.roots.ready();
      if ((args.audioPath === undefined) === (args.audioUrl === undefined)) {
        throw new ValidationError('Give either audioPath or audioUrl (exactly one). Nothing was sent.');
      }
      if (args.audioPath !== undefined && isRemoteReference(args.audioPath)) {
        throw new ValidationError('audioPath is a URL; pass it as audioUrl. Nothing was sent.');
      }
      let consent = args.consent === true;
      if (args.consent === undefined && session.canElicit()) {
        const answer = await session.elicit(
          {
            message: CONSENT_QUESTION,
            requestedSchema: {
              type: 'object',
              properties: {
                ownerConsents: {
                  type: 'boolean',
                  title: 'The voice owner authorised cloning',
                  description: 'Only confirm if the person whose voice this is agreed.',
                },
              },
              required: ['ownerConsents'],
            },
          },
          { signal: extra.signal },
        );
        consent = answer.action === 'accept' && answer.content?.ownerConsents === true;
      }
      if (!consent) {
        throw new ValidationError(
          'consent is required: register_voice needs consent=true, confirming that the owner of the voice authorised cloning it. Nothing was sent.',
          [{ path: 'consent', message: 'required' }],
        );
      }
      const voice = await deps.platform.client.speech.registerVoice({
        consent: true,
        ...(args.audioPath ? { audioFile: args.audioPath } : {}),
        ...(args.audioUrl ? { audioUrl: args.audioUrl } : {}),
        ...(args.name ? { name: args.name } : {}),
        ...(args.model ? { model: args.model } : {}),
        ...(args.language ? { language: args.language } : {}),
        ...(args.transcript !== undefined ? { transcript: args.transcript } : {}),
        signal: extra.signal,
      });
      const described = describeVoice(voice);
      return {
        content: [
          {
            type: 'text',
            text: `Voice "${described.name ?? described.voiceId}" ${voice.resumed ? 'was already registered' : 'registered'}; use voice=${described.cloneAudio} in synthesize_speech.`,
          },
        ],
        structuredContent: { ...described, resumed: voice.resumed },
      };
    } catch (error) {
      return toolErrorFor(error, deps);
    }
  },
});

export const listVoicesTool = defineTool({
  name: 'list_voices',
  title: 'List registered voices',
  description:
    'Lists voices registered here (local, free), with the cloneAudio to pass to synthesize_speech.',
  inputSchema: listVoicesInput,
  outputSchema: listVoicesOutput,
  annotations: { ...READ_ONLY_ANNOTATIONS, openWorldHint: false },
  handler: (deps: ToolDeps) => async () => {
    try {
      const entries = await deps.platform.client.speech.listVoices();
      const voices = entries
        .map((entry) => entry.request?.voice as CustomVoiceCreated | undefined)
        .filter((voice): voice is CustomVoiceCreated => voice !== undefined)
        .map(describeVoice);
      const lines = voices.map((voice) => `- ${voice.name ?? voice.voiceId}: voice=${voice.cloneAudio}`);
      return {
        content: [
          {
            type: 'text',
            text:
              voices.length === 0
                ? 'No voices registered by this installation yet.'
                : `${voices.length} voices:\n${lines.join('\n')}`,
          },
        ],
        structuredContent: { voices },
      };
    } catch (error) {
      return toolErrorFor(error, deps);
    }
  },
});

function describeVoice(voice: CustomVoiceCreated) {
  return {
    voiceId: voice.voice.id,
    name: voice.voice.name ?? null,
    cloneAudio: voice.clone_audio,
    cloneText: voice.clone_text ?? voice.voice.transcript ?? null,
    model: voice.voice.model ?? null,
    language: voice.voice.language ?? null,
  };
}
