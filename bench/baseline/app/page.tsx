// The app's own page: it holds no Sentry code.
export { default } from '@/app/page';
