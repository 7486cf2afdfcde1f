import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Every link of README.md and docs/*.md to a file of the repository, or to a
// heading of one, must lead somewhere: the README was split into docs/ and
// the pieces link to each other by GitHub's heading anchors.
const root = new URL('../../', import.meta.url);
const documents = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks, line by line (a fence's `# comment` is no heading). */
function proseLines(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      fence = marker;
    } else if (fence !== undefined) {
      if (marker?.startsWith(fence) === true && line.trim() === marker) fence = undefined;
    } else {
      lines.push(line);
    }
  }
  return lines;
}

/** A line without its code spans, so that `f(x)[0](y)` in backticks is no link. */
const withoutCodeSpans = (line: string): string =>
  line.replace(/(`+)[\s\S]*?\1/g, (span) => ' '.repeat(span.length));

/** GitHub's anchor of a heading (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text
    .replace(/<[^>]+>/g, '') // HTML tags
    .replace(/`/g, '')
    .replace(/(\*\*|__|\*|_)(\S[\s\S]*?)\1/g, '$2'); // emphasis
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a document offers: its headings (duplicates numbered as GitHub does) and `<a id>`s. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const slug = githubSlug(heading);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      found.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const [, id] of withoutCodeSpans(line).matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) {
      if (id !== undefined) found.add(id);
    }
  }
  return found;
}

/** Every link target of a document: inline `[text](target)` and reference definitions. */
function links(markdown: string): string[] {
  const targets: string[] = [];
  for (const raw of proseLines(markdown)) {
    const line = withoutCodeSpans(raw);
    for (const [, target] of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (target !== undefined) targets.push(target);
    }
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line)?.[1];
    if (definition !== undefined) targets.push(definition);
  }
  return targets;
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);

describe('links in README.md and docs/', () => {
  it('finds the documents and their links', () => {
    expect(documents).toContain('README.md');
    expect(documents).toContain('docs/configuration.md');
    const count = documents.reduce(
      (sum, doc) => sum + links(readFileSync(new URL(doc, root), 'utf8')).length,
      0,
    );
    expect(count).toBeGreaterThan(20);
  });

  it('makes anchors as GitHub does', () => {
    expect(githubSlug('Persisted operations (allow-list)')).toBe('persisted-operations-allow-list');
    expect(githubSlug('For front-end developers')).toBe('for-front-end-developers');
    expect(githubSlug('`npm run bench`: the figures')).toBe('npm-run-bench-the-figures');
    expect(githubSlug('Sign in (vRA 7, NSX-v 6.x)')).toBe('sign-in-vra-7-nsx-v-6x');
    const numbered = anchors('# A\n\n```sh\n# A\n```\n\n## A\n\n<a id="b"></a>**B.**\n');
    expect([...numbered]).toEqual(['a', 'a-1', 'b']);
  });

  it.each(documents)(
    '%s: every local link leads to a file, and every anchor to a heading',
    (doc) => {
      const source = new URL(doc, root);
      const broken: string[] = [];
      for (const target of links(readFileSync(source, 'utf8'))) {
        if (isExternal(target)) continue;
        const [path = '', fragment] = target.split('#', 2);
        const file = path === '' ? source : new URL(path, source);
        if (!file.pathname.startsWith(root.pathname) || !existsSync(file)) {
          broken.push(`${target}: no such file`);
          continue;
        }
        if (fragment === undefined || fragment === '') continue;
        if (statSync(file).isDirectory() || !file.pathname.endsWith('.md')) {
          broken.push(`${target}: an anchor into a file that is not markdown`);
          continue;
        }
        if (!anchors(readFileSync(file, 'utf8')).has(decodeURIComponent(fragment))) {
          broken.push(`${target}: no such heading or anchor`);
        }
      }
      expect(broken).toEqual([]);
    },
  );
});
