/**
 * A prompt as a person's host gets it: `prompts/get` with the arguments they typed, read as the one message
 * from the user that every Polymodal prompt is.
 */
import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'vitest';

/** The text of the prompt's one message (from the user, text). */
export async function promptText(
  client: Client,
  name: string,
  args: Record<string, string>,
): Promise<string> {
  const { messages } = await client.getPrompt({ name, arguments: args });
  expect(messages).toHaveLength(1);
  const [message] = messages;
  expect(message?.role).toBe('user');
  expect(message?.content.type).toBe('text');
  return message?.content.type === 'text' ? message.content.text : '';
}

/** Each of `words` appears in `text`, each after the one before. */
export function expectInOrder(text: string, words: readonly string[]): void {
  let from = 0;
  for (const word of words) {
    const at = text.indexOf(word, from);
    expect(at, `${word} after position ${from} in:\n${text}`).toBeGreaterThanOrEqual(0);
    from = at + word.length;
  }
}

/**
 * What `prompts/list` shows a person: the prompts, and each one's arguments in the order a host asks for them,
 * each with whether it is required. Also checks that the server declares prompts that never change at run
 * time.
 */
export async function listedPrompts(client: Client) {
  expect(client.getServerCapabilities()?.prompts).toEqual({ listChanged: false });
  const { prompts } = await client.listPrompts();
  const argumentsOf = Object.fromEntries(
    prompts.map((prompt) => [
      prompt.name,
      (prompt.arguments ?? []).map((argument): [string, boolean] => [
        argument.name,
        argument.required === true,
      ]),
    ]),
  );
  return { prompts, argumentsOf };
}

/**
 * What a host offers while a person types `value` into a prompt's argument (`completion/complete`), with the
 * arguments already given. Checks the answer's shape: at most 100 values, `hasMore` said.
 */
export async function completionOf(
  client: Client,
  prompt: string,
  argument: string,
  value: string,
  given?: Record<string, string>,
): Promise<{ values: string[]; hasMore: boolean }> {
  const { completion } = await client.complete({
    ref: { type: 'ref/prompt', name: prompt },
    argument: { name: argument, value },
    ...(given ? { context: { arguments: given } } : {}),
  });
  expect(completion.values.length).toBeLessThanOrEqual(100);
  expect(typeof completion.hasMore).toBe('boolean');
  return { values: completion.values, hasMore: completion.hasMore === true };
}
