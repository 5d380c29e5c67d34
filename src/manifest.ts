import { z } from 'zod';

/**
 * The shape of plugin.json, the manifest a panel reads to install the plugin. Hooks, cron
 * jobs and menu views are lists so that each feature adds its own entries.
 */
export const manifestSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/),
  name: z.string().min(1),
  version: z.string().regex(/^\d+\.\d+\.\d+/),
  description: z.string().min(1),
  entryPoints: z.record(z.string(), z.string().min(1)),
  hooks: z.array(z.strictObject({ panel: z.string(), event: z.string(), command: z.string(), stage: z.enum(['pre', 'post']).optional() })),
  cron: z.array(z.strictObject({ name: z.string(), schedule: z.string(), command: z.string() })),
  // An entry without `panel` is the plugin's own page, which any panel opens through `wpp launch-url`.
  menu: z.array(
    z.strictObject({
      id: z.string(),
      title: z.string(),
      audience: z.enum(['customer', 'admin']),
      path: z.string(),
      panel: z.string().optional(),
      /** What shows or hides the entry per hosting package, where the panel does that itself (protection per package). */
      perPackage: z.string().optional(),
    }),
  ),
  /** What `wpp install <panel>` supports, and where it records what it made. */
  install: z.array(z.strictObject({ panel: z.string(), install: z.string(), uninstall: z.string(), record: z.string() })),
  settings: z.array(
    z.strictObject({
      key: z.string().regex(/^WPP_[A-Z0-9_]+$/),
      type: z.enum(['string', 'integer', 'boolean', 'url', 'secret']),
      default: z.union([z.string(), z.number(), z.boolean()]).optional(),
      enum: z.array(z.string()).optional(),
      description: z.string().min(1),
    }),
  ),
});
export type Manifest = z.infer<typeof manifestSchema>;
