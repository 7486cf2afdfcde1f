import { inflateRawSync } from 'node:zlib';

/** What the simulator reads out of a vRO `.package` (a zip archive). */
export interface PackageContent {
  /** `pkg-name` of `dunes-meta-inf`. */
  name: string;
  workflows: PackagedWorkflow[];
}

export interface PackagedWorkflow {
  id: string;
  name: string;
  version: string;
  description: string | undefined;
  category: string | undefined;
  inputs: Array<{ name: string; type: string }>;
  outputs: Array<{ name: string; type: string }>;
}

/**
 * The most a package may hold once inflated, all files together: a small
 * upload that would inflate past it (a zip bomb) is refused as no package,
 * before more than this is ever inflated.
 */
export const maxInflatedBytes = 32 * 1024 * 1024;

/** Reads a package, or answers why it is not one. */
export function readPackage(bytes: Buffer): PackageContent | { error: string } {
  let files: Map<string, Buffer>;
  try {
    files = unzip(bytes);
  } catch (error) {
    return { error: `Not a vRO package: ${error instanceof Error ? error.message : 'unreadable'}` };
  }
  const meta = files.get('dunes-meta-inf');
  if (meta === undefined) return { error: 'Not a vRO package: no dunes-meta-inf' };
  const name = /<entry key="pkg-name">([^<]*)<\/entry>/.exec(meta.toString('utf8'))?.[1];
  if (name === undefined) return { error: 'Not a vRO package: no pkg-name' };
  const workflows: PackagedWorkflow[] = [];
  for (const [path, content] of files) {
    const match = /^elements\/([^/]+)\/data$/.exec(path);
    if (match === null) continue;
    const xml = decodeText(content);
    const root = /<workflow\b([^>]*)>/.exec(xml)?.[1];
    if (root === undefined) continue;
    const attribute = (attr: string) => new RegExp(`\\b${attr}="([^"]*)"`).exec(root)?.[1];
    const categories = files.get(`elements/${match[1] ?? ''}/categories`);
    workflows.push({
      id: attribute('id') ?? match[1] ?? '',
      name: /<display-name><!\[CDATA\[([^\]]*)\]\]><\/display-name>/.exec(xml)?.[1] ?? '',
      version: attribute('version') ?? '0.0.0',
      description: /<description><!\[CDATA\[([\s\S]*?)\]\]><\/description>/.exec(xml)?.[1],
      category:
        categories === undefined
          ? undefined
          : /<category name='([^']*)'/.exec(decodeText(categories))?.[1],
      inputs: params(/<input>([\s\S]*?)<\/input>/.exec(xml)?.[1]),
      outputs: params(/<output>([\s\S]*?)<\/output>/.exec(xml)?.[1]),
    });
  }
  return { name, workflows };
}

function params(block: string | undefined): Array<{ name: string; type: string }> {
  if (block === undefined) return [];
  return [...block.matchAll(/<param name='([^']*)' type='([^']*)'/g)].map((match) => ({
    name: match[1] ?? '',
    type: match[2] ?? '',
  }));
}

/** Element files are UTF-16 with a byte-order mark; the metadata is UTF-8. */
function decodeText(content: Buffer): string {
  if (content[0] === 0xfe && content[1] === 0xff) {
    const swapped = Buffer.from(content.subarray(2));
    swapped.swap16();
    return swapped.toString('utf16le');
  }
  if (content[0] === 0xff && content[1] === 0xfe) return content.subarray(2).toString('utf16le');
  return content.toString('utf8');
}

/** The files of a zip archive, from its central directory. */
function unzip(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0 || end + 22 > zip.length) throw new Error('no zip directory');
  const count = zip.readUInt16LE(end + 10);
  let entry = zip.readUInt32LE(end + 16);
  const files = new Map<string, Buffer>();
  let inflated = 0;
  for (let i = 0; i < count; i += 1) {
    if (zip.readUInt32LE(entry) !== 0x02014b50) throw new Error('broken zip directory');
    const method = zip.readUInt16LE(entry + 10);
    const compressedSize = zip.readUInt32LE(entry + 20);
    const size = zip.readUInt32LE(entry + 24);
    const nameLength = zip.readUInt16LE(entry + 28);
    const extraLength = zip.readUInt16LE(entry + 30);
    const commentLength = zip.readUInt16LE(entry + 32);
    const local = zip.readUInt32LE(entry + 42);
    const name = zip.toString('utf8', entry + 46, entry + 46 + nameLength);
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error('broken zip entry');
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressedSize);
    inflated += size;
    if (inflated > maxInflatedBytes) {
      throw new Error(`its files hold more than ${maxInflatedBytes} bytes`);
    }
    if (method === 0) files.set(name, Buffer.from(data));
    else if (method === 8) files.set(name, inflate(data, size));
    else throw new Error(`unsupported compression ${method}`);
    entry += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

/** An entry inflated to no more than the size its directory entry declares. */
function inflate(data: Buffer, size: number): Buffer {
  try {
    // One byte more than declared: a body that inflates past its size is caught, not cut.
    const content = inflateRawSync(data, { maxOutputLength: size + 1 });
    if (content.length !== size) throw new Error('size mismatch');
    return content;
  } catch {
    throw new Error('an entry does not inflate to its declared size');
  }
}
