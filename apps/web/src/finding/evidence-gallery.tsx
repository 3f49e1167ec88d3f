import { useState } from 'preact/hooks';
import { api, call } from '../api/api-client.ts';
import type { EvidenceImage } from '../api/api-types.ts';
import { evidenceReference, evidenceUrl } from '../editor/evidence-reference.ts';
import { t } from '../i18n/i18n.ts';
import { uploadEvidence } from '../report/evidence-upload.ts';
import { ErrorNotice } from '../ui/error-notice.tsx';

/** A finding's evidence images: upload, caption, order, delete, and the reference to paste into a text. */
export function EvidenceGallery(props: {
  findingId: string;
  images: EvidenceImage[];
  readOnly: boolean;
  onChange(images: EvidenceImage[]): void;
}) {
  const [error, setError] = useState<unknown>(null);
  const images = [...props.images].sort((a, b) => a.position - b.position);
  const update = async (image: EvidenceImage, body: { caption?: string; position?: number }) => {
    try {
      const saved = await call(
        api.PATCH('/rest/v1/evidence-images/{id}', { params: { path: { id: image.id } }, body }),
      );
      props.onChange(props.images.map((i) => (i.id === saved.id ? saved : i)));
    } catch (err) {
      setError(err);
    }
  };
  const remove = async (image: EvidenceImage) => {
    try {
      await call(api.DELETE('/rest/v1/evidence-images/{id}', { params: { path: { id: image.id } } }));
      props.onChange(props.images.filter((i) => i.id !== image.id));
    } catch (err) {
      setError(err);
    }
  };
  const swap = (i: number, j: number) => {
    const a = images[i];
    const b = images[j];
    if (!a || !b) return;
    void update(a, { position: b.position }).then(() => update(b, { position: a.position }));
  };
  return (
    <section aria-labelledby="evidence-title">
      <h2 id="evidence-title">{t('Evidence images')}</h2>
      <ErrorNotice error={error} />
      <ul class="gallery">
        {images.map((image, i) => (
          <li key={image.id} class="card">
            <img src={evidenceUrl(image)} alt={image.caption || image.fileName} loading="lazy" />
            <label class="field">
              <span>{t('Caption')}</span>
              <input
                value={image.caption}
                disabled={props.readOnly}
                onChange={(e) => void update(image, { caption: e.currentTarget.value })}
              />
            </label>
            <code class="reference">{evidenceReference(image)}</code>
            {!props.readOnly ? (
              <div class="actions">
                <button
                  type="button"
                  class="tool"
                  disabled={i === 0}
                  onClick={() => swap(i, i - 1)}
                  aria-label={t('Move image {n} earlier', { n: i + 1 })}
                >
                  ←
                </button>
                <button
                  type="button"
                  class="tool"
                  disabled={i === images.length - 1}
                  onClick={() => swap(i, i + 1)}
                  aria-label={t('Move image {n} later', { n: i + 1 })}
                >
                  →
                </button>
                <button type="button" class="tool danger" onClick={() => void remove(image)}>
                  {t('Delete')}
                </button>
              </div>
            ) : null}
          </li>
        ))}
      </ul>
      {!props.readOnly ? (
        <label class="field">
          <span>{t('Upload images')}</span>
          <input
            type="file"
            multiple
            accept="image/png,image/jpeg,image/gif,image/webp"
            onChange={(e) => {
              const files = Array.from(e.currentTarget.files ?? []);
              e.currentTarget.value = '';
              uploadEvidence({ findingId: props.findingId }, files).then(
                (u) => props.onChange([...props.images, ...u.images]),
                setError,
              );
            }}
          />
        </label>
      ) : null}
    </section>
  );
}
