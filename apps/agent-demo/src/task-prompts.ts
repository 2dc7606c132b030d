/**
 * The agent's task, built as a host builds it when a person picks the servers' prompts (slash commands): each
 * prompt is looked up in the servers' `prompts/list` and fetched with `prompts/get` and its arguments, and
 * its messages open the conversation in order, as the person's own. Words (a task typed, or a line the demo
 * adds for what no prompt covers) join as user messages where they stand.
 */
import type { ChatMessage } from './agent/chat-types.js';
import type { ConnectedServer } from './servers.js';

/** One part of a task: a prompt to fetch with its arguments, or words. */
export type TaskPart = { prompt: string; arguments: Record<string, string> } | { words: string };

/** A part as the run reports it: a prompt also names the server that offered it. */
export type ReportedPart =
  | { prompt: string; server: string; arguments: Record<string, string> }
  | { words: string };

export interface PreparedTask {
  /** The conversation's opening messages, in the order of the parts. */
  messages: ChatMessage[];
  parts: ReportedPart[];
  /** The messages' text, one after the other: what the agent was asked. */
  text: string;
}

export async function prepareTask(
  parts: readonly TaskPart[],
  servers: readonly ConnectedServer[],
): Promise<PreparedTask> {
  const messages: ChatMessage[] = [];
  const reported: ReportedPart[] = [];
  const offering = await promptsByServer(servers);
  for (const part of parts) {
    if ('words' in part) {
      messages.push({ role: 'user', content: part.words });
      reported.push(part);
      continue;
    }
    const server = servers.find((candidate) => offering.get(candidate)?.has(part.prompt));
    if (!server) {
      throw new Error(
        `No server offers the prompt ${part.prompt} (prompts/list); rebuild the servers with pnpm build.`,
      );
    }
    const fetched = await server.client.getPrompt({ name: part.prompt, arguments: part.arguments });
    for (const message of fetched.messages) {
      messages.push({ role: message.role, content: textOf(part.prompt, message.content) });
    }
    reported.push({ prompt: part.prompt, server: server.name, arguments: part.arguments });
  }
  const text = messages.map((message) => message.content ?? '').join('\n\n');
  return { messages, parts: reported, text };
}

/** The prompt names each server lists; none for a server that offers no prompts. */
async function promptsByServer(
  servers: readonly ConnectedServer[],
): Promise<Map<ConnectedServer, Set<string>>> {
  const listed = await Promise.all(
    servers.map(async (server) => {
      if (!server.client.getServerCapabilities()?.prompts) return new Set<string>();
      const names = new Set<string>();
      let cursor: string | undefined;
      do {
        const page = await server.client.listPrompts(cursor === undefined ? {} : { cursor });
        for (const prompt of page.prompts) names.add(prompt.name);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return names;
    }),
  );
  return new Map(servers.map((server, index) => [server, listed[index] as Set<string>]));
}

/** A prompt message's text: the demo's agent reads text (an embedded text resource counts as text). */
function textOf(prompt: string, content: { type: string; text?: unknown; resource?: unknown }): string {
  if (content.type === 'text' && typeof content.text === 'string') return content.text;
  const resource = content.resource as { text?: unknown } | undefined;
  if (content.type === 'resource' && typeof resource?.text === 'string') return resource.text;
  throw new Error(`The prompt ${prompt} sent ${content.type} content; the demo's agent reads text only.`);
}
