// Every view of the console and the page that renders it.
import type { Route } from './router.ts';
import { accountPage } from './pages/account.ts';
import { dashboardPage } from './pages/dashboard.ts';
import { lookupPage } from './pages/lookup.ts';
import { networkMappingPage } from './pages/network-mapping.ts';
import { networkMappingsPage } from './pages/network-mappings.ts';
import { resourcePage } from './pages/resource.ts';
import { resourcesPage } from './pages/resources.ts';
import { rrsetEditorPage } from './pages/rrset-editor.ts';
import { zonePage } from './pages/zone.ts';
import { zonesPage } from './pages/zones.ts';

export const routes: Route[] = [
  { path: '/dashboard', title: 'Dashboard', page: dashboardPage },
  { path: '/zones', title: 'DNS zones', page: zonesPage },
  { path: '/zones/:zone', title: 'Zone', page: zonePage },
  { path: '/zones/:zone/rrsets/new', title: 'New record set', page: rrsetEditorPage },
  { path: '/zones/:zone/rrsets/:name/:type', title: 'Record set', page: rrsetEditorPage },
  { path: '/network-mappings', title: 'Network mappings', page: networkMappingsPage },
  { path: '/network-mappings/new', title: 'New network mapping', page: networkMappingPage },
  { path: '/network-mappings/:id', title: 'Network mapping', page: networkMappingPage },
  { path: '/lookup', title: 'DNS lookup', page: lookupPage },
  { path: '/resources', title: 'Protected resources', page: resourcesPage },
  { path: '/resources/new', title: 'New protected resource', page: resourcePage },
  { path: '/resources/:id', title: 'Protected resource', page: resourcePage },
  { path: '/account', title: 'Account', page: accountPage },
];
