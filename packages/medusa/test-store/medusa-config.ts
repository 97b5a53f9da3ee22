import { defineConfig, loadEnv } from '@medusajs/framework/utils';

loadEnv(process.env.NODE_ENV || 'development', process.cwd());

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set (the plugin's tests set it)`);
  return value;
};
const store = env('STORE_URL');

// The plugin as a shop installs it, from its built package one folder up (`npm install @paylink/medusa`
// would make these "@paylink/medusa" and "@paylink/medusa/providers/paylink").
module.exports = defineConfig({
  projectConfig: {
    databaseUrl: env('DATABASE_URL'),
    http: {
      storeCors: store,
      adminCors: store,
      authCors: store,
      jwtSecret: env('JWT_SECRET'),
      cookieSecret: env('COOKIE_SECRET'),
    },
  },
  admin: { disable: true },
  plugins: [{ resolve: '..', options: {} }],
  modules: [
    {
      resolve: '@medusajs/medusa/payment',
      options: {
        providers: [
          {
            resolve: '../.medusa/server/src/providers/paylink',
            id: 'paylink',
            options: {
              apiUrl: env('PAYLINK_API_URL'),
              apiKey: env('PAYLINK_API_KEY'),
              webhookSecret: env('PAYLINK_WEBHOOK_SECRET'),
              testMode: process.env.PAYLINK_TEST_MODE === 'true',
              successUrl: `${store}/paylink/return?cart_id={cart_id}`,
              cancelUrl: `${store}/cart?cart_id={cart_id}`,
              webhookUrl: `${env('MEDUSA_BACKEND_URL')}/hooks/payment/paylink_paylink`,
            },
          },
        ],
      },
    },
  ],
});
