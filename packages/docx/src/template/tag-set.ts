import { lazyValue, type Data } from './lazy-data.ts';

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

/**
 * One tag of a scope: its kind and how its value is had from the scope's item. `lazy` values are
 * computed when a tag first reads them (and only when the template has the tag); the others when
 * the item's data is made.
 */
export interface TagDefinition<I> {
  kind: TagKind;
  value: (item: I) => unknown;
  lazy?: boolean;
}
export type TagDefinitions<I> = Record<string, TagDefinition<I>>;

export const textTag = <I>(value: (item: I) => unknown, lazy = false): TagDefinition<I> => ({
  kind: 'text',
  value,
  lazy,
});
export const stringsTag = <I>(value: (item: I) => readonly string[], lazy = false): TagDefinition<I> => ({
  kind: 'strings',
  value,
  lazy,
});
/** Rich values are always built on first read: they cost the most. */
export const richTag = <I>(value: (item: I) => string): TagDefinition<I> => ({ kind: 'rich', value, lazy: true });
export const listTag = <I, C>(scope: TagSet<C>, value: (item: I) => readonly unknown[]): TagDefinition<I> => ({
  kind: { list: scope.scope },
  value,
  lazy: true,
});

/**
 * The tags of one scope: their kinds (the linter's vocabulary, the documentation's tables) and
 * their values for an item, from one definition each, so what a template may say and what it
 * gets cannot drift apart.
 */
export class TagSet<I> {
  readonly scope: TagScope;
  private readonly eager: Array<[string, (item: I) => unknown]> = [];
  private readonly lazy: Array<[string, (item: I) => unknown]> = [];

  constructor(name: string, definitions: TagDefinitions<I>) {
    const tags: Record<string, TagKind> = {};
    for (const [tag, d] of Object.entries(definitions)) {
      tags[tag] = d.kind;
      (d.lazy ? this.lazy : this.eager).push([tag, d.value]);
    }
    this.scope = { name, tags };
  }

  /** The values of every tag for one item; lazy ones only where `uses` says the template has the tag. */
  data(item: I, uses: (name: string) => boolean): Data {
    const values: Data = {};
    for (const [tag, value] of this.eager) values[tag] = value(item);
    for (const [tag, value] of this.lazy) if (uses(tag)) lazyValue(values, tag, () => value(item));
    return values;
  }
}
