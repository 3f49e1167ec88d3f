import type Router from '@koa/router';
import type { Context } from 'koa';

/** What a route costs: `cost`, or for a conditional request `notModified` up front and the rest once it must work. */
export interface RouteCost {
  cost: number;
  /** What a request carrying `If-None-Match` is charged up front; the rest only if it is not answered 304. */
  notModified?: number;
}

/**
 * What each route costs against the rate limits, as its declaration says (`cost`); 1 when it says
 * nothing. The limits run before routing, so the request is matched against the router here. A
 * conditional request to a route that answers 304 before its work (an export, by its validator) is
 * charged the 304's cost first; the route charges the rest (chargeDeferredCost) when it renders.
 */
export class RouteCosts {
  private readonly costs = new Map<string, RouteCost>();

  constructor(private readonly router: Router) {}

  set(method: string, koaPath: string, cost: RouteCost): void {
    this.costs.set(`${method.toUpperCase()} ${koaPath}`, cost);
  }

  private routeCostOf(ctx: Context): RouteCost | null {
    if (this.costs.size === 0) return null;
    if (ctx.state.routeCost !== undefined) return ctx.state.routeCost as RouteCost | null;
    let found: RouteCost | null = null;
    for (const layer of this.router.match(ctx.path, ctx.method).pathAndMethod) {
      found = this.costs.get(`${ctx.method} ${layer.path}`) ?? null;
      if (found) break;
    }
    ctx.state.routeCost = found;
    return found;
  }

  private conditional(ctx: Context, cost: RouteCost | null): cost is RouteCost & { notModified: number } {
    return cost?.notModified !== undefined && ctx.get('If-None-Match') !== '';
  }

  /** What the request is charged when it arrives. */
  costOf(ctx: Context): number {
    const cost = this.routeCostOf(ctx);
    if (!cost) return 1;
    return this.conditional(ctx, cost) ? cost.notModified : cost.cost;
  }

  /** What it is charged besides, once the route knows it must do the work. */
  deferredCostOf(ctx: Context): number {
    const cost = this.routeCostOf(ctx);
    return this.conditional(ctx, cost) ? cost.cost - cost.notModified : 0;
  }
}
