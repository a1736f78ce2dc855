-- The states a loaded licence register covers (seed licence_registers: QBCC QLD, NSW Fair
-- Trading NSW, VBA VIC, SA CBS SA).

select distinct licence_registers.state
from {{ ref('licence_registers') }} as licence_registers
inner join (select distinct register from {{ ref('stg_licences__licences') }}) as loaded
    on licence_registers.register = loaded.register
