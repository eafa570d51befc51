# affinity: sources added by the component
