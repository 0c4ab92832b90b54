const NEWLINE = 0x0a;
const decoder = new TextDecoder();

type ItemHeader = Record<string, unknown>;

function isItemHeader(value: unknown): value is ItemHeader {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An item's payload length as the envelope format allows it: a byte count, or absent (a line). */
function payloadLengthOf({ length }: ItemHeader): number | undefined | null {
  if (length === undefined) return undefined;
  return Number.isSafeInteger(length) && (length as number) >= 0 ? (length as number) : null;
}

/**
 * The envelope's header line and each item's header line, as raw text, and each item's header as
 * parsed, walking items as Relay does (a payload is `length` bytes when its header says so, else a
 * line). Undefined when an item header is not a JSON object or its `length` is not a byte count of
 * the body: such a body is refused. 'tooManyItems' past `maxItems` items, found without reading
 * the rest: a megabyte of empty items would cost every reader after this one a parse each.
 */
export function envelopeHeaders(
  body: Uint8Array,
  maxItems: number,
): { lines: string[]; itemHeaders: ItemHeader[] } | 'tooManyItems' | undefined {
  const lineFrom = (start: number): [string, number] => {
    const end = body.indexOf(NEWLINE, start);
    const stop = end === -1 ? body.length : end;
    return [decoder.decode(body.subarray(start, stop)), stop + 1];
  };
  const [header, afterHeader] = lineFrom(0);
  const lines = [header];
  const itemHeaders: ItemHeader[] = [];
  let offset = afterHeader;
  while (offset < body.length) {
    const [itemHeader, payloadStart] = lineFrom(offset);
    if (itemHeader.trim() === '') {
      offset = payloadStart;
      continue;
    }
    lines.push(itemHeader);
    let parsed: unknown;
    try {
      parsed = JSON.parse(itemHeader);
    } catch {
      return undefined;
    }
    if (!isItemHeader(parsed)) return undefined;
    if (itemHeaders.length === maxItems) return 'tooManyItems';
    itemHeaders.push(parsed);
    const length = payloadLengthOf(parsed);
    // A negative or fractional length would walk backwards, or never end; one past the body's end
    // names bytes that never came (Relay refuses the envelope).
    if (length === null) return undefined;
    if (length !== undefined && Math.min(payloadStart, body.length) + length > body.length) return undefined;
    offset = length === undefined ? lineFrom(payloadStart)[1] : payloadStart + length + 1;
  }
  return { lines, itemHeaders };
}

/**
 * Whether a JSON text names one key twice in one object, at any depth. `JSON.parse` keeps the last
 * value and other parsers (Relay's, a proxy's) may keep the first, so such a header could be read
 * two ways. Keys are compared decoded (`"dsn"` and `"\u0064sn"` are one key). Expects valid JSON.
 */
export function hasDuplicateKeys(json: string): boolean {
  // One entry per open container: the keys seen so far, or null for an array.
  const open: (Set<string> | null)[] = [];
  let isKeyNext = false;
  for (let index = 0; index < json.length; index++) {
    const char = json[index];
    if (char === '"') {
      let end = index + 1;
      while (end < json.length && json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
      const keys = open.at(-1);
      if (isKeyNext && keys) {
        const key = JSON.parse(json.slice(index, end + 1)) as string;
        if (keys.has(key)) return true;
        keys.add(key);
        isKeyNext = false;
      }
      index = end;
    } else if (char === '{') {
      open.push(new Set());
      isKeyNext = true;
    } else if (char === '[') {
      open.push(null);
    } else if (char === '}' || char === ']') {
      open.pop();
    } else if (char === ',') {
      isKeyNext = open.at(-1) instanceof Set;
    }
  }
  return false;
}
