/**
 * Well-formed XML, checked by hand (no XML parser among the dependencies): a declaration, then exactly
 * one root element; tags nest and close in order; attributes are quoted and unique per element; `<` never
 * appears in text or attribute values and every `&` starts a known entity.
 */
export function checkWellFormed(xml: string): void {
  let rest = xml;
  if (!rest.startsWith('<?xml ')) throw new Error('no XML declaration');
  rest = rest.slice(rest.indexOf('?>') + 2);
  const name = '[A-Za-z_][A-Za-z0-9_.-]*';
  const tag = new RegExp(`^<(/?)(${name})((?:\\s+${name}\\s*=\\s*"[^"<]*")*)\\s*(/?)>`);
  const attribute = new RegExp(`(${name})\\s*=\\s*"([^"]*)"`, 'g');
  const badAmpersand = /&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);)/;
  const stack: string[] = [];
  let roots = 0;
  while (rest.length > 0) {
    if (rest[0] !== '<') {
      const end = rest.indexOf('<');
      const text = end < 0 ? rest : rest.slice(0, end);
      if (stack.length === 0 && text.trim() !== '') throw new Error(`text outside the root: ${text.slice(0, 40)}`);
      if (badAmpersand.test(text)) throw new Error(`bare & in text: ${text.slice(0, 40)}`);
      rest = end < 0 ? '' : rest.slice(end);
      continue;
    }
    const match = tag.exec(rest);
    if (!match) throw new Error(`malformed markup: ${rest.slice(0, 60)}`);
    const [whole, closing, tagName, attributes, selfClosing] = match;
    if (closing) {
      if (attributes || selfClosing) throw new Error(`malformed closing tag ${whole}`);
      if (stack.pop() !== tagName) throw new Error(`</${tagName}> closes the wrong element`);
    } else {
      const seen = new Set<string>();
      for (const [, attr, value] of attributes!.matchAll(attribute)) {
        if (seen.has(attr!)) throw new Error(`duplicate attribute ${attr} on <${tagName}>`);
        seen.add(attr!);
        if (badAmpersand.test(value!)) throw new Error(`bare & in ${attr} of <${tagName}>`);
      }
      if (stack.length === 0 && ++roots > 1) throw new Error('more than one root element');
      if (!selfClosing) stack.push(tagName!);
    }
    rest = rest.slice(whole.length);
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack.join('>, <')}>`);
  if (roots !== 1) throw new Error('no root element');
}
