import { QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { Router } from 'wouter'

import { queryClient } from './api.js'
import { Console } from './shell.js'
import './console.css'

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <Router base="/console">
        <Console />
      </Router>
    </QueryClientProvider>
  </StrictMode>,
)
