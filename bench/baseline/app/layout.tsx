// The app's own layout and styles: they hold no Sentry code.
export { default, metadata } from '@/app/layout';
