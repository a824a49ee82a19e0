import { describe, expect, it } from 'vitest'

import { deriveLabel, splitName, toFilenameBase } from './guest-names.js'

describe('splitName', () => {
  it('when a name has several words, then the first word is the first name and the rest the last name', () => {
    expect(splitName('Ada King Lovelace')).toEqual({ firstName: 'Ada', lastName: 'King Lovelace' })
  })

  it('when a name has one word, then the last name is empty', () => {
    expect(splitName('Cher')).toEqual({ firstName: 'Cher', lastName: '' })
  })

  it('when a name has extra spaces, then they are folded', () => {
    expect(splitName('  Grace \t  Brewster   Hopper ')).toEqual({ firstName: 'Grace', lastName: 'Brewster Hopper' })
  })
})

const names = (...full: string[]) => full.map(splitName)

describe('deriveLabel', () => {
  it('when one guest registers, then the label is the full name', () => {
    expect(deriveLabel(names('Ada Lovelace'))).toBe('Ada Lovelace')
  })

  it('when two or three guests register, then their first names are joined', () => {
    expect(deriveLabel(names('Ada Lovelace', 'Grace Hopper'))).toBe('Ada & Grace')
    expect(deriveLabel(names('Ada Lovelace', 'Grace Hopper', 'Alan Turing'))).toBe('Ada, Grace & Alan')
  })

  it('when more than three guests register, then three first names and a count are shown', () => {
    expect(deriveLabel(names('Ada L', 'Grace H', 'Alan T', 'Edsger D', 'Barbara L'))).toBe('Ada, Grace, Alan & 2 more')
  })

  it('when names hold characters unsafe in file names, then they are replaced', () => {
    expect(deriveLabel(names('Ada/../"Lovelace"'))).toBe('Ada .. Lovelace')
    expect(deriveLabel(names('CON:\u0000<x>|y?*'))).toBe('CON x y')
  })

  it('when names hold apostrophes and non-ASCII letters, then they are kept', () => {
    expect(deriveLabel(names("Zoë O'Brien", 'José Núñez'))).toBe('Zoë & José')
  })
})

describe('toFilenameBase', () => {
  it('when a label is long, then it is cut to 60 characters without splitting a character', () => {
    const label = toFilenameBase('😀'.repeat(100))
    expect(Array.from(label)).toHaveLength(60)
    expect(label).toBe('😀'.repeat(60))
  })

  it('when nothing printable is left, then the label falls back to "Photos"', () => {
    expect(toFilenameBase(' ... ')).toBe('Photos')
    expect(toFilenameBase('"/\\"')).toBe('Photos')
  })

  it('when a label starts or ends with dots, then they are removed', () => {
    expect(toFilenameBase('..hidden.')).toBe('hidden')
  })
})
