import { describe, expect, it } from 'vitest';
import { createClock } from './clock.js';

/** A clock over a wall time the test moves by hand. */
function clockOverFakeWall() {
  let wall = 1_000_000;
  const clock = createClock(() => wall);
  return { clock, pass: (milliseconds: number) => (wall += milliseconds), wall: () => wall };
}

describe('createClock', () => {
  it('runs with wall time plus what advance() added', () => {
    const { clock, pass } = clockOverFakeWall();
    expect(clock.now()).toBe(1_000_000);
    clock.advance(500);
    pass(100);
    expect(clock.now()).toBe(1_000_600);
    expect(() => clock.advance(-1)).toThrow(/only moves forward/);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
  });

  it('stands still while held, whatever wall time does; advance() moves the held time', () => {
    const { clock, pass } = clockOverFakeWall();
    clock.advance(1000);
    clock.hold();
    expect(clock.isHeld()).toBe(true);
    pass(60_000);
    expect(clock.now()).toBe(1_001_000);
    clock.advance(250);
    pass(60_000);
    expect(clock.now()).toBe(1_001_250);
    clock.hold();
    expect(clock.now()).toBe(1_001_250);
  });

  it('on release runs on from the held time: no jump back, no catching up with the time held', () => {
    const { clock, pass } = clockOverFakeWall();
    clock.hold();
    pass(30_000);
    clock.advance(5000);
    clock.release();
    expect(clock.isHeld()).toBe(false);
    expect(clock.now()).toBe(1_005_000);
    pass(2000);
    expect(clock.now()).toBe(1_007_000);
    clock.release();
    expect(clock.now()).toBe(1_007_000);
  });

  it('reset() releases and returns to wall time', () => {
    const { clock, pass, wall } = clockOverFakeWall();
    clock.advance(9000);
    clock.hold();
    pass(10);
    clock.reset();
    expect(clock.isHeld()).toBe(false);
    expect(clock.now()).toBe(wall());
  });
});
