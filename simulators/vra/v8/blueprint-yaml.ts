/**
 * Reads the two sections of a cloud template (blueprint YAML) the simulator
 * needs: `inputs` (each input's `type`, `title`, `description`, `default`,
 * `enum`, `minimum`, `maximum`, `minLength`, `maxLength`) as the catalog
 * item's JSON schema, and `resources` (each name and `type`). A line reader of
 * block mappings and flow lists, not a YAML parser: enough for the templates
 * the tests write. An input without a default is required, as vRA 8 renders it.
 */

export interface InputSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
}

export interface TemplateResource {
  name: string;
  type: string;
}

interface Line {
  indent: number;
  key: string;
  value: string;
}

function linesOf(content: string): Line[] {
  const lines: Line[] = [];
  for (const raw of content.split(/\r?\n/)) {
    const text = raw.replace(/\s+#.*$/, '');
    const match = /^(\s*)([A-Za-z0-9_.-]+):\s*(.*)$/.exec(text);
    if (match === null) continue;
    lines.push({
      indent: match[1]?.length ?? 0,
      key: match[2] ?? '',
      value: (match[3] ?? '').trim(),
    });
  }
  return lines;
}

function scalar(value: string): unknown {
  if (value.startsWith('[') && value.endsWith(']'))
    return value
      .slice(1, -1)
      .split(',')
      .map((item) => scalar(item.trim()));
  if (/^'.*'$|^".*"$/.test(value)) return value.slice(1, -1);
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return value;
}

/** The children of the top-level key `section`: each with its own child lines. */
function section(lines: Line[], name: string): Array<{ key: string; children: Line[] }> {
  const start = lines.findIndex((line) => line.indent === 0 && line.key === name);
  if (start < 0) return [];
  const entries: Array<{ key: string; children: Line[] }> = [];
  let entryIndent: number | undefined;
  for (const line of lines.slice(start + 1)) {
    if (line.indent === 0) break;
    entryIndent ??= line.indent;
    if (line.indent === entryIndent) entries.push({ key: line.key, children: [] });
    else entries.at(-1)?.children.push(line);
  }
  return entries;
}

const inputKeywords = new Set([
  'type',
  'title',
  'description',
  'default',
  'enum',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
]);

export function templateInputs(content: string): InputSchema {
  const schema: InputSchema = { type: 'object', properties: {}, required: [] };
  for (const input of section(linesOf(content), 'inputs')) {
    const property: Record<string, unknown> = {};
    const indent = input.children[0]?.indent;
    for (const line of input.children)
      if (line.indent === indent && inputKeywords.has(line.key) && line.value !== '')
        property[line.key] = scalar(line.value);
    property['type'] ??= 'string';
    schema.properties[input.key] = property;
    if (!('default' in property)) schema.required.push(input.key);
  }
  return schema;
}

export function templateResources(content: string): TemplateResource[] {
  return section(linesOf(content), 'resources').map((resource) => {
    const type = resource.children.find((line) => line.key === 'type')?.value;
    return {
      name: resource.key,
      type: type === undefined ? 'Cloud.Machine' : String(scalar(type)),
    };
  });
}
