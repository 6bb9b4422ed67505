/**
 * A one-page certificate as a real PDF (pdf-lib): a title, the holder's name, lines of facts, the issue
 * date, a verification code and the issuer. No domain: CAP uses it for qualification certificates and
 * payment receipts, the LMS for course certificates.
 */
import type { Color, PDFFont, PDFPage } from 'pdf-lib';

export interface CertificateContent {
  /** e.g. "Certificate of Competence". */
  title: string;
  /** One line under the title, e.g. "This certifies that". */
  preamble?: string;
  holderName: string;
  /** Shown in order under the name, e.g. `{ label: 'Trade', value: 'Masonry' }`. */
  facts: Array<{ label: string; value: string }>;
  issuedOn: Date;
  verificationCode: string;
  /** What the code is called on the page (default "Verification code"; a receipt's is its payment reference). */
  codeLabel?: string;
  /** Who issues it, e.g. the awarding body's name. */
  issuer: string;
  /** Where the code can be checked, printed under it when given. */
  verifyAt?: string;
}

/**
 * The standard PDF fonts only draw WinAnsi characters: accents are taken off (Adaèze -> Adaeze, Ọbi ->
 * Obi) and anything else that cannot be drawn becomes '?', so no name makes rendering fail.
 */
export function drawable(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e\xa0-\xff]/g, '?');
}

function centred(page: PDFPage, text: string, y: number, font: PDFFont, size: number, color: Color) {
  const line = drawable(text);
  // Long lines shrink to fit between the margins rather than run off the page.
  const maxWidth = page.getWidth() - 120;
  const fitted = Math.min(size, (size * maxWidth) / Math.max(font.widthOfTextAtSize(line, size), 1));
  page.drawText(line, {
    x: (page.getWidth() - font.widthOfTextAtSize(line, fitted)) / 2,
    y,
    size: fitted,
    font,
    color,
  });
}

/** The certificate as PDF bytes: A4 landscape, one page, with the text as text (searchable, copyable). */
export async function renderCertificatePdf(content: CertificateContent): Promise<Uint8Array> {
  // Loaded with the first certificate, not at start: few requests render one, and a server that has
  // loaded pdf-lib holds about 20 MB more (measured RSS).
  const { PDFDocument, StandardFonts, rgb } = await import('pdf-lib');
  const ink = rgb(0.12, 0.16, 0.22);
  const accent = rgb(0.05, 0.35, 0.45);
  const muted = rgb(0.4, 0.44, 0.5);
  const pdf = await PDFDocument.create();
  pdf.setTitle(drawable(`${content.title}: ${content.holderName}`));
  pdf.setAuthor(drawable(content.issuer));
  pdf.setSubject(drawable(`${content.codeLabel ?? 'Verification code'} ${content.verificationCode}`));
  pdf.setCreationDate(content.issuedOn);
  const page = pdf.addPage([841.89, 595.28]);
  const [regular, bold, italic] = await Promise.all([
    pdf.embedFont(StandardFonts.Helvetica),
    pdf.embedFont(StandardFonts.HelveticaBold),
    pdf.embedFont(StandardFonts.HelveticaOblique),
  ]);
  const { width, height } = page.getSize();
  page.drawRectangle({ x: 24, y: 24, width: width - 48, height: height - 48, borderColor: accent, borderWidth: 3 });
  page.drawRectangle({ x: 34, y: 34, width: width - 68, height: height - 68, borderColor: accent, borderWidth: 0.75 });

  let y = height - 110;
  centred(page, content.title, y, bold, 32, accent);
  y -= 48;
  centred(page, content.preamble ?? 'This certifies that', y, italic, 14, muted);
  y -= 46;
  centred(page, content.holderName, y, bold, 28, ink);
  y -= 44;
  for (const fact of content.facts) {
    centred(page, `${fact.label}: ${fact.value}`, y, regular, 14, ink);
    y -= 24;
  }

  const issued = content.issuedOn.toISOString().slice(0, 10);
  page.drawText(drawable(`Issued by ${content.issuer}`), { x: 70, y: 96, size: 12, font: bold, color: ink });
  page.drawText(`Date of issue: ${issued}`, { x: 70, y: 78, size: 11, font: regular, color: ink });
  const code = drawable(`${content.codeLabel ?? 'Verification code'}: ${content.verificationCode}`);
  page.drawText(code, { x: width - 70 - bold.widthOfTextAtSize(code, 11), y: 96, size: 11, font: bold, color: ink });
  if (content.verifyAt) {
    const where = drawable(`Verify at ${content.verifyAt}`);
    page.drawText(where, {
      x: width - 70 - regular.widthOfTextAtSize(where, 9),
      y: 78,
      size: 9,
      font: regular,
      color: muted,
    });
  }
  return pdf.save();
}
