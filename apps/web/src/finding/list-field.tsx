import { useEffect, useState } from 'preact/hooks';

/** A list of short values (CVEs, CWEs, references) edited as one per line. */
export function ListField<T extends string | number>(props: {
  label: string;
  hint: string;
  values: T[];
  readOnly: boolean;
  parse(line: string): T | null;
  onChange(values: T[]): void;
}) {
  const [text, setText] = useState(props.values.join('\n'));
  useEffect(() => {
    const parsed = text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .map(props.parse);
    if (parsed.join('\n') !== props.values.join('\n')) setText(props.values.join('\n'));
  }, [props.values.join('\n')]);
  return (
    <label class="field">
      <span>{props.label}</span>
      <textarea
        rows={3}
        value={text}
        disabled={props.readOnly}
        spellcheck={false}
        onInput={(e) => {
          setText(e.currentTarget.value);
          const values = e.currentTarget.value
            .split('\n')
            .map((l) => l.trim())
            .filter(Boolean)
            .map(props.parse)
            .filter((v): v is T => v !== null);
          props.onChange(values);
        }}
      />
      <span class="hint">{props.hint}</span>
    </label>
  );
}
