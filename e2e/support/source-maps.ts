import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FlattenMap, originalPositionFor, type SectionedSourceMapInput } from '@jridgewell/trace-mapping';
import type { Event, StackFrame } from '@sentry/core';

export type SourceMap = { debugId?: string; sources?: string[]; sections?: { map: SourceMap }[] };

/** Where an original file and line sit, as a person reads them in Sentry. */
export type OriginalPosition = { source: string; line: number };

// The project's own modules, by their path in the project.
const APP_SOURCE = /^(?:(?:app|components|lib)\/|(?:instrumentation(?:-client)?|proxy)\.ts$)/;

const DEBUG_ID_COMMENT = /\n\/\/# debugId=([0-9a-f-]{36})\s*(?:\n|$)/;
const MAP_COMMENT = /\n\/\/# sourceMappingURL=(\S+)\s*$/;

export function debugIdOf(code: string): string | undefined {
  return DEBUG_ID_COMMENT.exec(code)?.[1];
}

/**
 * A map's sources as paths in the project. Turbopack names them `turbopack:///[project]/…` in the
 * browser's maps and relative to the map (which sits in the build folder) in the server's.
 */
export function sourcesOf(map: SourceMap): string[] {
  const sources = [...(map.sources ?? []), ...(map.sections ?? []).flatMap((section) => sourcesOf(section.map))];
  return sources.map((source) => source.replace(/^turbopack:\/\/\/\[project\]\//, '').replace(/^(?:\.\.\/)+/, ''));
}

export function holdsAppCode(map: SourceMap): boolean {
  return sourcesOf(map).some((source) => APP_SOURCE.test(source));
}

/**
 * Every file below `folder` whose name ends with `suffix`, as paths relative to it. Symbolic links
 * are not followed: Next links the packages it keeps external into the project's node_modules.
 */
export function filesBelow(folder: string, suffix: string, prefix = ''): string[] {
  if (!existsSync(join(folder, prefix))) return [];
  return readdirSync(join(folder, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = join(prefix, entry.name);
    if (entry.isDirectory()) return filesBelow(folder, suffix, path);
    return entry.isFile() && entry.name.endsWith(suffix) ? [path] : [];
  });
}

/** Every `.js` file below `folder`, as paths relative to it. */
export function scriptsBelow(folder: string): string[] {
  return filesBelow(folder, '.js');
}

/** The map a built chunk names in its `sourceMappingURL` comment, if it names one that exists. */
export function namedMapOf(chunkPath: string): SourceMap | undefined {
  const url = MAP_COMMENT.exec(readFileSync(chunkPath, 'utf8'))?.[1];
  const path = url === undefined ? undefined : join(dirname(chunkPath), decodeURIComponent(url));
  return path !== undefined && existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as SourceMap) : undefined;
}

/** Every source map a build folder holds, by the debug ID each declares. */
export function mapsByDebugId(distDir: string): Map<string, SourceMap> {
  const maps = new Map<string, SourceMap>();
  for (const folder of ['static', 'server']) {
    const root = join(distDir, folder);
    for (const file of filesBelow(root, '.js.map')) {
      const map = JSON.parse(readFileSync(join(root, file), 'utf8')) as SourceMap;
      if (map.debugId !== undefined) maps.set(map.debugId, map);
    }
  }
  return maps;
}

/** The innermost frame of the event's exception that Sentry counts as the app's own. */
export function topInAppFrame(event: Event): StackFrame {
  const frames = event.exception?.values?.[0]?.stacktrace?.frames ?? [];
  const frame = frames.findLast((candidate) => candidate.in_app);
  if (frame === undefined) throw new Error(`no in-app frame in ${JSON.stringify(frames)}`);
  return frame;
}

/**
 * Resolves `frame` as Sentry does: the event's debug images give the debug ID of the frame's file,
 * and the map with that debug ID gives the original position. Throws when a link is missing.
 */
export function symbolicate(event: Event, frame: StackFrame, maps: Map<string, SourceMap>): OriginalPosition {
  const image = event.debug_meta?.images?.find(
    (candidate) => 'code_file' in candidate && candidate.code_file === frame.filename,
  );
  if (image === undefined || !('debug_id' in image)) {
    throw new Error(`the event carries no debug ID for ${frame.filename}: ${JSON.stringify(event.debug_meta)}`);
  }
  const map = maps.get(image.debug_id);
  if (map === undefined) throw new Error(`the build kept no source map with debug ID ${image.debug_id}`);
  if (frame.lineno === undefined || frame.colno === undefined) throw new Error('the frame has no position');
  // Sentry's columns count from 1, a source map's from 0.
  const position = originalPositionFor(new FlattenMap(map as SectionedSourceMapInput), {
    line: frame.lineno,
    column: frame.colno - 1,
  });
  if (position.source === null || position.line === null) {
    throw new Error(`the map of ${frame.filename} has no original position for ${frame.lineno}:${frame.colno}`);
  }
  return { source: position.source, line: position.line };
}

/** The 1-based line of `file` (relative to the project) that holds `text`, exactly once. */
export function lineOf(file: string, text: string): number {
  const lines = readFileSync(file, 'utf8').split('\n');
  const found = lines.flatMap((line, index) => (line.includes(text) ? [index + 1] : []));
  if (found.length !== 1) throw new Error(`${file} holds ${JSON.stringify(text)} ${found.length} times`);
  return found[0] as number;
}
