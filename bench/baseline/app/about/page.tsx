export { default, metadata } from '@/app/about/page';
