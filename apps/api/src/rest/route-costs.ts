import type Router from '@koa/router';
import type { Context } from 'koa';

/**
 * What each route costs against the rate limits, as its declaration says (`cost`); 1 when it says
 * nothing. The limits run before routing, so the request is matched against the router here.
 */
export class RouteCosts {
  private readonly costs = new Map<string, number>();

  constructor(private readonly router: Router) {}

  set(method: string, koaPath: string, cost: number): void {
    this.costs.set(`${method.toUpperCase()} ${koaPath}`, cost);
  }

  costOf(ctx: Context): number {
    if (this.costs.size === 0) return 1;
    for (const layer of this.router.match(ctx.path, ctx.method).pathAndMethod) {
      const cost = this.costs.get(`${ctx.method} ${layer.path}`);
      if (cost !== undefined) return cost;
    }
    return 1;
  }
}
