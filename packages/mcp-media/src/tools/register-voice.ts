/**
 * register_voice and list_voices: a custom (cloned) voice from a short recording, registered once and
 * reused by synthesize_speech. Cloning someone's voice needs their authorisation: the call requires
 * consent=true, and when it is missing and the client supports elicitation, the user is asked directly.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type CustomVoiceCreated, ValidationError } from '@polymodal/core';
import { PLATFORM_WORK_ANNOTATIONS, READ_ONLY_ANNOTATIONS } from '@polymodal/mcp-common';
import { z } from 'zod';
import { isRemoteReference, type MediaToolDeps, mediaToolError } from './media-tool-deps.js';

const voiceShape = {
  voiceId: z.string(),
  name: z.string().nullable(),
  cloneAudio: z.string().describe('Pass this as voice to synthesize_speech.'),
  cloneText: z.string().nullable(),
  model: z.string().nullable(),
  language: z.string().nullable(),
};

const CONSENT_QUESTION =
  'Registering a custom voice clones the voice in this recording. Confirm that the person whose voice it is has authorised cloning it.';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const registerVoiceInput = {
  audioPath: z.string().min(1).optional().describe('Local WAV file of the voice.'),
  audioUrl: z.string().min(1).optional().describe('Public https URL of the recording, instead of audioPath.'),
  consent: z.boolean().optional().describe('true: the voice owner authorised cloning.'),
  name: z.string().min(1).max(120).optional(),
  model: z
    .enum(['model_b', 'model_c', 'model_d'])
    .optional()
    .describe('Model the voice is for (default model_d).'),
  language: z.string().min(2).max(8).optional(),
  transcript: z.string().optional().describe('What is said in the recording (improves cloning).'),
};

const registerVoiceOutput = { ...voiceShape, resumed: z.boolean() };

const listVoicesInput = {};

const listVoicesOutput = { voices: z.array(z.object(voiceShape)) };

export function registerVoiceTools(server: McpServer, deps: MediaToolDeps): void {
  server.registerTool(
    'register_voice',
    {
      title: 'Register a custom voice',
      description:
        'Registers a cloned voice from a short WAV recording (audioPath, inside an allowed directory) or a public https recording (audioUrl), once; reuse the returned cloneAudio as voice in synthesize_speech for every sentence. Requires consent=true: the owner of the voice authorised cloning it (if omitted, clients that support it are asked to confirm). Registering the same recording again returns the earlier voice.',
      inputSchema: registerVoiceInput,
      outputSchema: registerVoiceOutput,
      annotations: { title: 'Register a custom voice', ...PLATFORM_WORK_ANNOTATIONS },
    },
    async (args, extra) => {
      try {
        await deps.roots.ready();
        if ((args.audioPath === undefined) === (args.audioUrl === undefined)) {
          throw new ValidationError('Give either audioPath or audioUrl (exactly one). Nothing was sent.');
        }
        if (args.audioPath !== undefined && isRemoteReference(args.audioPath)) {
          throw new ValidationError('audioPath is a URL; pass it as audioUrl. Nothing was sent.');
        }
        let consent = args.consent === true;
        if (args.consent === undefined && server.server.getClientCapabilities()?.elicitation) {
          const answer = await server.server.elicitInput(
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
        const voice = await deps.context.polymodal.speech.registerVoice({
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
        return mediaToolError(error, deps);
      }
    },
  );

  server.registerTool(
    'list_voices',
    {
      title: 'List registered voices',
      description:
        'Lists the custom voices this installation registered with register_voice (from its local ledger, newest first), with the cloneAudio to pass as voice to synthesize_speech. Free; no platform call.',
      inputSchema: listVoicesInput,
      outputSchema: listVoicesOutput,
      annotations: { title: 'List registered voices', ...READ_ONLY_ANNOTATIONS, openWorldHint: false },
    },
    async () => {
      try {
        const entries = await deps.context.polymodal.speech.listVoices();
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
        return mediaToolError(error, deps);
      }
    },
  );
}

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
