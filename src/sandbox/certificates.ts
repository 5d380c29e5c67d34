import { createPrivateKey, X509Certificate } from 'node:crypto';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * Checks a custom certificate the way a provider must before serving it: the bundle holds
 * at least one PEM certificate (the first is the leaf), the key is a PEM private key that
 * belongs to the leaf, the leaf is currently valid and covers the website's domain.
 * Returns the problems found, empty when the pair is usable.
 */
export function checkCertificatePair(pair: { public: string; private: string }, domain: string, now = Date.now()): string[] {
  const blocks = pair.public.match(PEM_CERTIFICATE) ?? [];
  const leafPem = blocks[0];
  if (!leafPem) return ['certificate.public must hold a PEM certificate (-----BEGIN CERTIFICATE-----)'];
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(leafPem);
  } catch {
    return ['certificate.public is not a parsable X.509 certificate'];
  }
  const problems: string[] = [];
  try {
    const key = createPrivateKey(pair.private);
    if (!leaf.checkPrivateKey(key)) problems.push('certificate.private does not belong to the certificate in certificate.public');
  } catch {
    problems.push('certificate.private is not a parsable PEM private key');
  }
  if (Date.parse(leaf.validTo) < now) problems.push(`the certificate expired on ${new Date(leaf.validTo).toISOString()}`);
  if (Date.parse(leaf.validFrom) > now) problems.push(`the certificate is not valid before ${new Date(leaf.validFrom).toISOString()}`);
  if (leaf.checkHost(domain) === undefined) problems.push(`the certificate does not cover ${domain}`);
  return problems;
}
