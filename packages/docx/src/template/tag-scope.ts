/**
 * The tag language of Word templates, as data: what each name means in each scope. `text` is a
 * plain placeholder `{name}`; `rich` is Markdown or a picture written as paragraphs, used as a
 * raw tag `{@name}` alone in its paragraph; `list` is a loop `{#name}...{/name}` over a scope;
 * `strings` a loop over plain values shown with `{.}`. Every name also works as a condition:
 * `{#name}...{/name}` shows its content when the value is not empty, `{^name}...{/name}` when it is.
 */
export type TagKind = 'text' | 'rich' | 'strings' | { list: TagScope };
export interface TagScope {
  name: string;
  tags: Record<string, TagKind>;
}
