/** An event's numbers: what guests did with their galleries, hour by hour, and the guest list to download. */
import { useQuery } from '@tanstack/react-query'

import { api, type Output, type client, type StaffEvent, type StaffMember } from './api.js'
import { formatDateTime, formatNumber, formatTime } from './format.js'
import { may } from './roles.js'
import { Loaded } from './ui.js'

type EventStats = Output<typeof client.staff.events.stats>
type Hour = EventStats['hourly'][number]

const SERIES = [
  { key: 'views', name: 'Views', colour: 'var(--series-1)' },
  { key: 'shares', name: 'Shares', colour: 'var(--series-2)' },
  { key: 'downloads', name: 'Downloads', colour: 'var(--series-3)' },
  { key: 'zips', name: 'Zips', colour: 'var(--series-4)' },
] as const satisfies readonly { key: keyof Hour; name: string; colour: string }[]

const CHANNELS = [
  ['facebook', 'Facebook'],
  ['instagram', 'Instagram'],
  ['tiktok', 'TikTok'],
  ['copy', 'Link copied'],
  ['native', 'Phone’s share sheet'],
] as const

export function Numbers({ me, event }: { me: StaffMember; event: StaffEvent }) {
  const stats = useQuery(api.events.stats.queryOptions({ input: { eventId: event.id } }))
  return (
    <div className="stack">
      {may(me.role, 'events.exportGuests') && (
        <div className="card export">
          <div>
            <h2>Guest list</h2>
            <p className="muted">Names, emails, phones, consent and delivery of every guest, as a spreadsheet (CSV).</p>
          </div>
          <a className="button primary" href={`/staff/events/${encodeURIComponent(event.id)}/guests.csv`} download>
            Download the guest list
          </a>
        </div>
      )}
      <Loaded query={stats} what="the numbers">
        {(data) => (
          <>
            <div className="summary">
              {(
                [
                  ['Gallery views', data.views],
                  ['Shares', data.shares.total],
                  ['Photo downloads', data.downloads],
                  ['Zips downloaded', data.zips],
                  ['Guests', data.guests],
                  ['Links sent', data.messages.sent],
                ] as const
              ).map(([label, value]) => (
                <div className="tile" key={label}>
                  <span className="tile-value">{formatNumber(value)}</span>
                  <span className="tile-label">{label}</span>
                </div>
              ))}
            </div>
            <div className="grid two">
              <section className="card" aria-labelledby="hourly-title">
                <h2 id="hourly-title">Hour by hour</h2>
                {data.hourly.length === 0 ? (
                  <p className="muted">Nothing yet: views and downloads show here as guests open their galleries.</p>
                ) : (
                  <HourlyChart hours={data.hourly} />
                )}
              </section>
              <section className="card" aria-labelledby="shares-title">
                <h2 id="shares-title">Shares by channel</h2>
                <ul className="bars">
                  {CHANNELS.map(([key, name]) => (
                    <li key={key}>
                      <span>{name}</span>
                      <span className="bar" aria-hidden="true">
                        <span style={{ width: `${data.shares.total ? (100 * data.shares[key]) / data.shares.total : 0}%` }} />
                      </span>
                      <b>{formatNumber(data.shares[key])}</b>
                    </li>
                  ))}
                </ul>
                <h2>Gallery links</h2>
                <ul className="bars">
                  {(
                    [
                      ['Waiting', data.messages.pending],
                      ['Sent', data.messages.sent],
                      ['Failed', data.messages.failed],
                    ] as const
                  ).map(([name, value]) => (
                    <li key={name}>
                      <span>{name}</span>
                      <span className="bar" aria-hidden="true">
                        <span
                          style={{
                            width: `${data.guests ? Math.min(100, (100 * value) / Math.max(1, data.messages.pending + data.messages.sent + data.messages.failed)) : 0}%`,
                          }}
                        />
                      </span>
                      <b>{formatNumber(value)}</b>
                    </li>
                  ))}
                </ul>
              </section>
            </div>
          </>
        )}
      </Loaded>
    </div>
  )
}

/** Grouped bars per hour (an SVG drawn here), with the same figures as a table for screen readers and exact reading. */
function HourlyChart({ hours }: { hours: Hour[] }) {
  const max = Math.max(1, ...hours.flatMap((hour) => SERIES.map((series) => hour[series.key])))
  const width = 640
  const height = 220
  const pad = { left: 36, bottom: 28, top: 8 }
  const slot = (width - pad.left) / hours.length
  // Slim bars even for one hour of activity, centred in their hour.
  const bar = Math.max(1, Math.min(22, (slot * 0.8) / SERIES.length))
  const groupStart = (i: number) => pad.left + i * slot + (slot - bar * SERIES.length) / 2
  const y = (value: number) => height - pad.bottom - ((height - pad.bottom - pad.top) * value) / max
  const every = Math.ceil(hours.length / 8)
  return (
    <>
      <ul className="legend" aria-hidden="true">
        {SERIES.map((series) => (
          <li key={series.key}>
            <span style={{ background: series.colour }} />
            {series.name}
          </li>
        ))}
      </ul>
      <svg
        className="chart"
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label="Views, shares, downloads and zips per hour (the table below has the figures)"
      >
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line x1={pad.left} x2={width} y1={y(max * f)} y2={y(max * f)} className="gridline" />
            <text x={pad.left - 6} y={y(max * f) + 4} textAnchor="end" className="axis">
              {formatNumber(Math.round(max * f))}
            </text>
          </g>
        ))}
        {hours.map((hour, i) => (
          <g key={hour.hour}>
            {SERIES.map((series, s) => (
              <rect
                key={series.key}
                x={groupStart(i) + s * bar}
                y={y(hour[series.key])}
                width={bar}
                height={height - pad.bottom - y(hour[series.key])}
                fill={series.colour}
                rx={1}
              />
            ))}
            {i % every === 0 && (
              <text x={pad.left + i * slot + slot / 2} y={height - 8} textAnchor="middle" className="axis">
                {formatTime(hour.hour)}
              </text>
            )}
          </g>
        ))}
      </svg>
      <details className="figures">
        <summary>The figures as a table</summary>
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Per hour">
          <table>
            <caption className="visually-hidden">Per hour</caption>
            <thead>
              <tr>
                <th scope="col">Hour</th>
                <th scope="col">Sessions</th>
                {SERIES.map((series) => (
                  <th scope="col" key={series.key}>
                    {series.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {hours.map((hour) => (
                <tr key={hour.hour}>
                  <th scope="row">{formatDateTime(hour.hour)}</th>
                  <td>{formatNumber(hour.sessions)}</td>
                  {SERIES.map((series) => (
                    <td key={series.key}>{formatNumber(hour[series.key])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  )
}
