// Reads the launch point out of a content package's imsmanifest.xml (IMS Content Packaging as SCORM
// 1.2 and 2004 use it). No XML library is among the project's dependencies, so this is a small reader
// for what a manifest holds: elements, attributes, text, comments, CDATA, a prolog and a DOCTYPE. It
// never resolves external entities (there is nothing to fetch), and names are matched without their
// namespace prefix, as manifests use several prefixes for the same namespaces.

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

export class ManifestError extends Error {
  override name = 'ManifestError';
}

const entities: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return entities[ref.toLowerCase()] ?? whole;
  });
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1).toLowerCase();

/** Parses XML text into its root element; throws ManifestError when it is not well formed. */
export function parseXml(xml: string): XmlElement {
  const root: XmlElement = { name: '#document', attributes: {}, children: [], text: '' };
  const open: XmlElement[] = [root];
  const tag =
    /<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>|<\?[\s\S]*?\?>|<!DOCTYPE(?:[^\[>]|\[[\s\S]*?\])*>|<\/\s*([^\s>]+)\s*>|<([^\s/>!?]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/gi;
  let at = 0;
  for (let match = tag.exec(xml); match; match = tag.exec(xml)) {
    const between = xml.slice(at, match.index);
    if (between.includes('<'))
      throw new ManifestError(
        `the manifest is not well-formed XML near "${between.slice(between.indexOf('<'), between.indexOf('<') + 40)}"`,
      );
    open.at(-1)!.text += decode(between);
    at = tag.lastIndex;
    const [whole, cdata, closing, opening, attributeText, selfClosing] = match;
    if (cdata !== undefined) open.at(-1)!.text += cdata;
    else if (closing) {
      const element = open.pop();
      if (!element || open.length === 0 || element.name !== localName(closing))
        throw new ManifestError(`the manifest closes <${closing}> where it is not open`);
    } else if (opening) {
      const attributes: Record<string, string> = {};
      for (const attribute of (attributeText ?? '').matchAll(/([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
        const name = attribute[1]!;
        attributes[name.startsWith('xml:') ? name.toLowerCase() : localName(name)] = decode(
          attribute[2] ?? attribute[3] ?? '',
        );
      }
      const element: XmlElement = { name: localName(opening), attributes, children: [], text: '' };
      open.at(-1)!.children.push(element);
      if (!selfClosing) open.push(element);
    } else if (!whole.startsWith('<')) {
      throw new ManifestError('the manifest is not well-formed XML');
    }
  }
  if (xml.slice(at).includes('<')) throw new ManifestError('the manifest is not well-formed XML at its end');
  if (open.length !== 1) throw new ManifestError(`the manifest never closes <${open.at(-1)!.name}>`);
  const elements = root.children;
  if (elements.length !== 1) throw new ManifestError('the manifest must have exactly one root element');
  return elements[0]!;
}

const childrenNamed = (element: XmlElement, name: string) => element.children.filter((child) => child.name === name);
const childNamed = (element: XmlElement, name: string) => childrenNamed(element, name)[0];

export interface PackageLaunch {
  /** `1.2` or `2004`, from the manifest's schemaversion (1.2 when it says nothing else). */
  scormVersion: '1.2' | '2004';
  title: string | null;
  /** The launch file of the first SCO of the default organization, relative to the package root. */
  scoHref: string;
}

/**
 * The launch point of a package: the default organization (or the first), its first item that points
 * at a resource, and that resource's href with any xml:base in front.
 */
export function readManifest(xml: string): PackageLaunch {
  const manifest = parseXml(xml);
  if (manifest.name !== 'manifest')
    throw new ManifestError(`the manifest's root element is <${manifest.name}>, not <manifest>`);
  const schemaVersion =
    childNamed(manifest, 'metadata') && childNamed(childNamed(manifest, 'metadata')!, 'schemaversion')?.text.trim();
  const scormVersion = schemaVersion && /2004|cam 1\.3/i.test(schemaVersion) ? '2004' : '1.2';

  const organizations = childNamed(manifest, 'organizations');
  const all = organizations ? childrenNamed(organizations, 'organization') : [];
  const organization = all.find((o) => o.attributes.identifier === organizations?.attributes.default) ?? all[0];
  const firstLaunchable = (element: XmlElement): XmlElement | undefined => {
    for (const item of childrenNamed(element, 'item')) {
      if (item.attributes.identifierref) return item;
      const nested = firstLaunchable(item);
      if (nested) return nested;
    }
    return undefined;
  };
  const item = organization && firstLaunchable(organization);

  const resourcesElement = childNamed(manifest, 'resources');
  const resources = resourcesElement ? childrenNamed(resourcesElement, 'resource') : [];
  const resource = item
    ? resources.find((r) => r.attributes.identifier === item.attributes.identifierref)
    : resources.find((r) => r.attributes.href && (r.attributes.scormtype ?? 'sco').toLowerCase() === 'sco');
  if (item && !resource)
    throw new ManifestError(
      `the item "${item.attributes.identifier ?? ''}" points at a resource "${item.attributes.identifierref}" the manifest does not have`,
    );
  if (!resource?.attributes.href)
    throw new ManifestError('the manifest names no launchable resource (a resource with an href)');
  const base = (resourcesElement?.attributes['xml:base'] ?? '') + (resource.attributes['xml:base'] ?? '');
  const title =
    (item && childNamed(item, 'title')?.text.trim()) ||
    (organization && childNamed(organization, 'title')?.text.trim()) ||
    null;
  return { scormVersion, title, scoHref: base + resource.attributes.href };
}
