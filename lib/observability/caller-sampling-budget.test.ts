import { CallerSamplingBudget } from '@/lib/observability/caller-sampling-budget';

/** A budget on a clock the test moves, and a way to ask it `count` times in a row. */
function budgetAt(sampleRate: number) {
  let now = 1_000;
  const budget = new CallerSamplingBudget(sampleRate, () => now);
  const granted = (count: number) => Array.from({ length: count }, () => budget.maySample()).filter(Boolean).length;
  return { budget, granted, advance: (ms: number) => (now += ms) };
}

describe('CallerSamplingBudget', () => {
  beforeEach(() => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('lets a quiet server follow a hundred sampled callers at once, then ten a second', () => {
    const { granted, advance } = budgetAt(0.1);
    expect(granted(150)).toBe(100);
    advance(1_000);
    expect(granted(50)).toBe(10);
    advance(500);
    expect(granted(50)).toBe(5);
    // A long quiet stretch fills it back to a hundred, no more.
    advance(3_600_000);
    expect(granted(150)).toBe(100);
  });

  it("earns twice the rate's share for every request the server decides", () => {
    const { budget, granted } = budgetAt(0.25);
    expect(granted(100)).toBe(100);
    for (let request = 0; request < 30; request++) budget.countRequest();
    expect(granted(50)).toBe(15);
    // Up to a hundred, however many requests came.
    for (let request = 0; request < 1_000; request++) budget.countRequest();
    expect(granted(150)).toBe(100);
  });

  it('says at most once a minute how many traces it continued unsampled', () => {
    const { granted, advance } = budgetAt(0.1);
    granted(105);
    advance(30_000);
    granted(500);
    advance(30_000);
    granted(101);
    const warn = vi.mocked(console.warn);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[0]?.[0]).toMatch(/callers asked for more sampled traces .*; 1 continued unsampled/);
    // 4 more from the first burst, 400 from the second (the clock fills it to a hundred, no more), 1 from the last.
    expect(warn.mock.calls[1]?.[0]).toMatch(/; 405 continued unsampled/);
  });
});
