import { describe, expect, it } from 'vitest';
import type { Slot } from './concurrency-governor.js';
import { TaskSlots } from './task-slots.js';

function slot(released: string[], name: string): Slot {
  return { release: () => released.push(name) };
}

describe('TaskSlots', () => {
  it('keeps a task’s slot until it is released, and gives an older slot back when the task gets a new one', () => {
    const released: string[] = [];
    let holds = 0;
    const slots = new TaskSlots(() => {
      holds += 1;
    });
    slots.hold('task-1', slot(released, 'first'));
    slots.hold('task-1', slot(released, 'second'));
    expect(released).toEqual(['first']);
    slots.release('task-1');
    slots.release('task-1');
    slots.release('never-held');
    expect(released).toEqual(['first', 'second']);
    expect(holds).toBe(2);
  });
});
