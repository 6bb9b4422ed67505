import test from 'ava';
import { drawable, renderCertificatePdf } from '../../server/platform/pdf/certificate.ts';
import { firstPagePng, pdfText } from '../helpers/pdf.ts';

// The certificate renderer of server/platform/pdf (service-neutral: CAP and the LMS both use it).
const content = {
  title: 'Certificate of Competence',
  holderName: 'Adaèze Ọbi',
  facts: [
    { label: 'Trade', value: 'Masonry' },
    { label: 'Level', value: '2' },
    { label: 'Assessment centre', value: 'Lagos Skills Centre' },
  ],
  issuedOn: new Date('2026-11-24T10:00:00Z'),
  verificationCode: 'CAP-7K3M-Q9XD',
  issuer: 'National Board for Technical Education',
  verifyAt: 'https://cap.example.test/verify',
};

test('a certificate is a one-page PDF whose text holds the holder, every fact, the date, the code and the issuer', async (t) => {
  const bytes = await renderCertificatePdf(content);
  t.is(Buffer.from(bytes.subarray(0, 5)).toString('latin1'), '%PDF-');
  const text = await pdfText(bytes);
  for (const expected of [
    'Certificate of Competence',
    'Adaeze Obi',
    'Trade: Masonry',
    'Level: 2',
    'Assessment centre: Lagos Skills Centre',
    '2026-11-24',
    'CAP-7K3M-Q9XD',
    'National Board for Technical Education',
  ]) {
    t.true(text.includes(expected), `"${expected}" is in the text:\n${text}`);
  }
});

test('page 1 of a certificate renders to an image (landscape)', async (t) => {
  const { png, width, height } = await firstPagePng(await renderCertificatePdf(content));
  t.deepEqual([...png.subarray(1, 4)], [...Buffer.from('PNG')]);
  t.true(width > height, `${width}x${height}`);
});

test('a name the standard fonts cannot draw still renders: accents come off, other characters become ?', async (t) => {
  t.is(drawable('Adaèze Ọbi'), 'Adaeze Obi');
  t.is(drawable('李 Wei'), '? Wei');
  const text = await pdfText(await renderCertificatePdf({ ...content, holderName: '李 Wei', issuer: 'Ẹ̀kọ́ Board' }));
  t.true(text.includes('? Wei'));
  t.true(text.includes('Eko Board'));
});

test('a very long line is shrunk to fit the page instead of running off it', async (t) => {
  const long = 'Advanced Electrical Installation, Maintenance and Commissioning of Industrial Systems';
  const text = await pdfText(await renderCertificatePdf({ ...content, facts: [{ label: 'Trade', value: long }] }));
  t.true(text.replace(/\s+/g, ' ').includes(`Trade: ${long}`));
});
